import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Subjects, type Actor } from '@app/contracts';
import { AdvisoryLeadership } from '@app/database';
import { CommandBus } from '@app/messaging';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';

const SYSTEM: Actor = { userId: 'system', kind: 'system', reason: 'quota samples for the charts' };

/**
 * Every QUOTA_SAMPLE_INTERVAL_MS the leader (one replica, an advisory lock) issues `quota.cmd.sample`; a recorded
 * command, so a rebuild has the same history. Off in REPLAY_MODE, where the samples are replayed.
 */
@Injectable()
export class QuotaSampler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('quotas');
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private readonly leadership: AdvisoryLeadership;

  constructor(
    private readonly commands: CommandBus,
    private readonly config: ClusterSchedulerConfig,
  ) {
    this.leadership = new AdvisoryLeadership({
      databaseUrl: config.DATABASE_URL,
      name: 'cluster-scheduler/quota-sampler',
      checkMs: config.LEADER_CHECK_MS,
      log: (line) => this.logger.log(line),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.REPLAY_MODE || this.config.QUOTA_SAMPLE_INTERVAL_MS === 0) return;
    this.leadership.start();
    this.timer = setInterval(() => {
      if (!this.leadership.isLeader) return;
      this.running ??= this.tick().finally(() => (this.running = null));
    }, this.config.QUOTA_SAMPLE_INTERVAL_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.leadership.stop();
  }

  private async tick(): Promise<void> {
    try {
      await this.commands.execute(Subjects.quota.sample, {}, SYSTEM, { timeoutMs: 30_000 });
    } catch (error) {
      this.logger.warn(`quota sample failed: ${(error as Error).message}`);
    }
  }
}
