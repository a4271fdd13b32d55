import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Subjects, type Actor } from '@app/contracts';
import { AdvisoryLeadership } from '@app/database';
import { CommandBus } from '@app/messaging';
import { QueueBrokerConfig } from '../queue-broker.config.js';
import { JobHistoryRepository } from './job-history/job-history.repository.js';
import { JobsRepository } from './jobs.repository.js';
import { sweeperMetrics } from './sweeper.metrics.js';

const SYSTEM: Actor = { userId: 'system', kind: 'system' };

/**
 * Every SWEEP_INTERVAL_MS: a cheap read says whether anything is due (a lost worker, a timeout, an expiry, a history row past its retention); only
 * then is a `job.cmd.sweep` command issued, so the command log records each sweep that changed something. With
 * several replicas only the leader sweeps (a Postgres advisory lock): a second sweep would find nothing to do
 * but costs a command.
 */
@Injectable()
export class JobSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('sweeper');
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private readonly startedAt = Date.now();
  private readonly leadership: AdvisoryLeadership;

  constructor(
    private readonly jobs: JobsRepository,
    private readonly commands: CommandBus,
    private readonly config: QueueBrokerConfig,
    private readonly history: JobHistoryRepository,
  ) {
    this.leadership = new AdvisoryLeadership({
      databaseUrl: config.DATABASE_URL,
      name: 'queue-broker/sweeper',
      checkMs: config.LEADER_CHECK_MS,
      log: (line) => this.logger.log(line),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.REPLAY_MODE) {
      this.logger.log('REPLAY_MODE: the sweeper is off (sweeps are replayed from the command log)');
      return;
    }
    this.leadership.start();
    this.timer = setInterval(() => {
      if (!this.leadership.isLeader) return;
      this.running ??= this.tick().finally(() => (this.running = null));
    }, this.config.SWEEP_INTERVAL_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.leadership.stop();
  }

  private async tick(): Promise<void> {
    try {
      const now = new Date();
      const detectLostWorkers = now.getTime() - this.startedAt >= this.config.WORKER_LOST_AFTER_MS;
      const lostBefore = new Date(detectLostWorkers ? now.getTime() - this.config.WORKER_LOST_AFTER_MS : 0);
      const historyBefore = new Date(now.getTime() - this.config.JOB_HISTORY_RETENTION_MS);
      const due = (await this.jobs.sweepDue(now, lostBefore)) || (await this.history.purgeDue(historyBefore));
      if (!due) return;
      const result = await this.commands.execute(Subjects.job.sweep, { detectLostWorkers }, SYSTEM, {
        timeoutMs: 30_000,
      });
      sweeperMetrics.workersLost.inc(result.lostWorkers ?? 0);
      if (Object.values(result).some((n) => n > 0)) this.logger.log(`swept ${JSON.stringify(result)}`);
    } catch (error) {
      this.logger.warn(`sweep failed: ${(error as Error).message}`);
    }
  }
}
