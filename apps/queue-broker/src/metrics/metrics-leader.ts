import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { AdvisoryLeadership } from '@app/database';
import { QueueBrokerConfig } from '../queue-broker.config.js';
import { clearGauges } from './endpoint-metrics.prometheus.js';
import { JobEventsFolder } from './fold-job-events/job-events.folder.js';
import { GaugeSampler } from './sample-gauges/gauge.sampler.js';

/**
 * One replica of the broker keeps the endpoint metrics (a Postgres advisory lock, as the sweeper): it folds the job
 * events into the rollups and samples the gauges. Off in REPLAY_MODE (a rebuild replays commands, not metrics).
 */
@Injectable()
export class MetricsLeader implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('metrics');
  private readonly leadership: AdvisoryLeadership;
  private timer?: NodeJS.Timeout;
  private sampling: Promise<void> | null = null;
  private folding: Promise<void> | null = null;
  private stopping = false;
  /** When this replica last sampled (0: not leading). */
  private lastSample = 0;

  constructor(
    private readonly folder: JobEventsFolder,
    private readonly sampler: GaugeSampler,
    private readonly config: QueueBrokerConfig,
  ) {
    this.leadership = new AdvisoryLeadership({
      databaseUrl: config.DATABASE_URL,
      name: 'queue-broker/metrics',
      checkMs: config.LEADER_CHECK_MS,
      log: (line) => this.logger.log(line),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.REPLAY_MODE) return;
    this.leadership.start();
    this.timer = setInterval(() => this.check(), Math.min(this.config.LEADER_CHECK_MS, 1000));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await Promise.allSettled([this.sampling, this.folding]);
    await this.leadership.stop();
  }

  private check(): void {
    if (!this.leadership.isLeader) {
      if (this.lastSample) clearGauges();
      this.lastSample = 0;
      return;
    }
    this.folding ??= this.fold().finally(() => (this.folding = null));
    if (Date.now() - this.lastSample >= this.config.METRICS_SAMPLE_MS) {
      this.lastSample = Date.now();
      this.sampling ??= this.sampler
        .tick()
        .catch((error: Error) => this.logger.warn(`metrics sample failed: ${error.message}`))
        .finally(() => (this.sampling = null));
    }
  }

  private async fold(): Promise<void> {
    try {
      await this.folder.run(() => this.leadership.isLeader && !this.stopping);
    } catch (error) {
      this.logger.warn(`folding job events into metrics stopped: ${(error as Error).message}; resuming`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
