import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Subjects, type Actor, type RecordLbRequestsCommand } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { GatewayConfig } from '../gateway.config.js';
import { LbLoad } from './lb-load.js';
import { LbRequestTallies, lbWorkerGauge, type LbOutcome } from './lb-request-tally.js';
import { LbWorkers } from './lb-workers.js';

const GATEWAY: Actor = { userId: 'system:gateway', kind: 'system', reason: 'load-balancing request metrics' };

/** A flush that could not be recorded is sent again (same command id) this many times, then dropped. */
const MAX_TRIES = 5;

/**
 * The endpoint metrics of load-balancing endpoints (docs/adr/0026, "Request metrics"): every LB request that ended
 * is counted here in memory (status class, latency), and every LB_METRICS_FLUSH_MS this replica records what it
 * counted, with the workers it sees by status, as ONE command (`job.cmd.record-lb-requests`) that the broker adds
 * to the rollups. A command per request would put a recorded write on the proxy's hot path (ADR 31 measures it).
 * A flush that failed is sent again with the same command id, so it counts once even if it had been recorded.
 */
@Injectable()
export class LbRequestMeter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('lb');
  private readonly gatewayId = randomUUID();
  private readonly tallies = new LbRequestTallies();
  private pending?: { commandId: string; payload: RecordLbRequestsCommand; tries: number };
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly commands: CommandBus,
    private readonly workers: LbWorkers,
    private readonly load: LbLoad,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.flush(), this.config.LB_METRICS_FLUSH_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** A request to an LB endpoint ended (answered by a worker, or by the gateway for it). */
  ended(endpointId: string, outcome: LbOutcome, startedAt: number, endedAt = Date.now()): void {
    this.tallies.count(endpointId, outcome, endedAt - startedAt, endedAt);
  }

  /** Records what was counted since the last flush; one flush at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.record().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async record(): Promise<void> {
    if (!this.pending) {
      const payload: RecordLbRequestsCommand = {
        gatewayId: this.gatewayId,
        requests: this.tallies.drain(),
        workers: this.workers
          .endpointIds()
          .map((id) => lbWorkerGauge(id, this.workers.states(id), this.load.outstanding))
          .filter((g) => g.running + g.idle + g.initializing + g.unhealthy > 0),
      };
      // Nothing served and no worker seen: nothing to record (an idle gateway records nothing).
      if (!payload.requests.length && !payload.workers.length) return;
      this.pending = { commandId: randomUUID(), payload, tries: 0 };
    }
    const pending = this.pending;
    try {
      await this.commands.execute(Subjects.job.recordLbRequests, pending.payload, GATEWAY, {
        commandId: pending.commandId,
      });
      this.pending = undefined;
    } catch (error) {
      pending.tries += 1;
      const dropped = pending.tries >= MAX_TRIES;
      if (dropped) this.pending = undefined;
      this.logger.warn(
        `could not record LB request metrics (${(error as Error).message})` +
          (dropped
            ? `; ${pending.payload.requests.length} tallies dropped`
            : '; sent again at the next flush'),
      );
    }
  }
}
