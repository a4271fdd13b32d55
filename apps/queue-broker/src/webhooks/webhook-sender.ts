import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { listSetting } from '@app/config';
import { SecretBox } from '@app/platform';
import { endpointPrometheus } from '../metrics/endpoint-metrics.prometheus.js';
import { QueueBrokerConfig } from '../queue-broker.config.js';
import { WebhookDeliveriesRepository, type DueDelivery } from './webhook-deliveries.repository.js';
import { signedHeaders } from './webhook-signer.js';
import { WebhookTransport, redactedUrl } from './webhook-transport.js';

const BATCH = 20;

/**
 * Delivers the webhook rows that terminal transitions write (an outbox of their own): POSTs the final status
 * object, signed (Standard Webhooks) with the endpoint's secret, expects a 2xx, and retries up to
 * WEBHOOK_MAX_ATTEMPTS in all, WEBHOOK_RETRY_INTERVAL_MS apart. Rows are claimed with SKIP LOCKED plus a lease
 * (`locked_until`), so replicas share the work and a crash mid-delivery only delays it. Never runs inside a
 * command handler. Where a webhook may go is the transport's business (webhook-transport.ts).
 */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  private readonly transport: WebhookTransport;
  private readonly box: SecretBox;
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly config: QueueBrokerConfig,
  ) {
    this.transport = new WebhookTransport(listSetting(config.WEBHOOK_ALLOWED_NETWORKS));
    this.box = new SecretBox(config.REGISTRY_AUTH_KEYS);
  }

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
      const due = await this.deliveries.claim(BATCH, this.config.WEBHOOK_TIMEOUT_MS + 5000);
      if (!due.length) return;
      await Promise.all(due.map((row) => this.deliver(row)));
      if (due.length < BATCH) return;
    }
  }

  private async deliver(row: DueDelivery): Promise<void> {
    const attempt = row.attempts + 1;
    let failure: string | null = null;
    try {
      const body = JSON.stringify(row.body);
      const headers = {
        'content-type': 'application/json',
        ...signedHeaders(row.id, new Date(), body, this.secretsOf(row)),
      };
      const status = await this.transport.post({
        url: row.url,
        body,
        headers,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
      });
      if (status >= 300 && status < 400) failure = `answered ${status} (redirects are not followed)`;
      else if (status < 200 || status > 299) failure = `answered ${status}`;
    } catch (error) {
      failure = (error as Error).message;
    }
    const at = new Date();
    if (failure === null) {
      await this.deliveries.delivered(row, attempt, at);
      endpointPrometheus.webhooks.inc({ outcome: 'delivered' });
      return;
    }
    const giveUp = attempt >= this.config.WEBHOOK_MAX_ATTEMPTS;
    this.logger.warn(
      `webhook of job ${row.jobId} to ${redactedUrl(row.url)} failed (attempt ${attempt}): ${failure}` +
        (giveUp ? '; giving up' : ''),
    );
    const retryAt = giveUp ? null : new Date(at.getTime() + this.config.WEBHOOK_RETRY_INTERVAL_MS);
    await this.deliveries.failed(row, attempt, failure, at, retryAt);
    endpointPrometheus.webhooks.inc({ outcome: giveUp ? 'gave_up' : 'failed' });
  }

  /** The secrets that sign this delivery: the current one, and the previous one during the overlap. */
  private secretsOf(row: DueDelivery): string[] {
    if (!row.endpointId || !row.secretSealed) return [];
    const secrets = [this.box.open(row.secretSealed, row.endpointId)];
    const overlapEnds = (row.rotatedAt?.getTime() ?? 0) + this.config.WEBHOOK_SECRET_OVERLAP_MS;
    if (row.previousSealed && Date.now() < overlapEnds) {
      secrets.push(this.box.open(row.previousSealed, row.endpointId));
    }
    return secrets;
  }
}
