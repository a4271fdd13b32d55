import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueBrokerConfig } from '../queue-broker.config.js';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';

const BATCH = 20;

/**
 * Delivers the webhook rows that terminal transitions write (an outbox of their own): POSTs the final status
 * object, expects a 2xx, and retries up to WEBHOOK_MAX_ATTEMPTS in all, WEBHOOK_RETRY_INTERVAL_MS apart. Rows are
 * claimed with SKIP LOCKED plus a lease (`locked_until`), so replicas share the work and a crash mid-delivery only
 * delays it. Never runs inside a command handler.
 */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: QueueBrokerConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.REPLAY_MODE) {
      this.logger.log('REPLAY_MODE: webhooks are not sent');
      return;
    }
    const every = Math.min(1000, this.config.WEBHOOK_RETRY_INTERVAL_MS);
    this.timer = setInterval(() => {
      this.running ??= this.drain()
        .catch((error: Error) => this.logger.warn(`webhook delivery paused: ${error.message}`))
        .finally(() => (this.running = null));
    }, every);
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const due = await this.claim();
      if (!due.length) return;
      await Promise.all(due.map((row) => this.deliver(row)));
      if (due.length < BATCH) return;
    }
  }

  private async claim(): Promise<WebhookDeliveryEntity[]> {
    const lease = this.config.WEBHOOK_TIMEOUT_MS + 5000;
    const rows = await this.dataSource.query<
      [{ id: string; job_id: string; url: string; body: unknown; attempts: number }[], number]
    >(
      `UPDATE queue_broker.webhook_deliveries SET locked_until = now() + $1 * interval '1 millisecond'
       WHERE id IN (
         SELECT id FROM queue_broker.webhook_deliveries
         WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, job_id, url, body, attempts`,
      [lease, BATCH],
    );
    return rows[0].map((r) =>
      Object.assign(new WebhookDeliveryEntity(), {
        id: r.id,
        jobId: r.job_id,
        url: r.url,
        body: r.body,
        attempts: r.attempts,
      }),
    );
  }

  private async deliver(row: WebhookDeliveryEntity): Promise<void> {
    const attempt = row.attempts + 1;
    let failure: string | null = null;
    try {
      const response = await fetch(row.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(row.body),
        signal: AbortSignal.timeout(this.config.WEBHOOK_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.status < 200 || response.status > 299) failure = `answered ${response.status}`;
    } catch (error) {
      failure = (error as Error).message;
    }
    const repository = this.dataSource.getRepository(WebhookDeliveryEntity);
    if (failure === null) {
      await repository.update(row.id, { attempts: attempt, deliveredAt: new Date(), lockedUntil: null });
      return;
    }
    const giveUp = attempt >= this.config.WEBHOOK_MAX_ATTEMPTS;
    this.logger.warn(
      `webhook of job ${row.jobId} to ${row.url} failed (attempt ${attempt}): ${failure}${giveUp ? '; giving up' : ''}`,
    );
    await repository.update(row.id, {
      attempts: attempt,
      lastError: failure.slice(0, 1000),
      lockedUntil: null,
      ...(giveUp
        ? { gaveUpAt: new Date() }
        : { nextAttemptAt: new Date(Date.now() + this.config.WEBHOOK_RETRY_INTERVAL_MS) }),
    });
  }
}
