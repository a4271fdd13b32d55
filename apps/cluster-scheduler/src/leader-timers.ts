import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { AdvisoryLeadership } from '@app/database';
import { ClusterSchedulerConfig } from './cluster-scheduler.config.js';

interface Timer {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  handle?: NodeJS.Timeout;
  running: Promise<void> | null;
}

/**
 * The scheduler's leader timers: one replica (an advisory lock) runs them, each at its own period, one run of a
 * timer at a time; what they do is record commands (quota samples, expired drains), so a rebuild replays their
 * effect rather than running them. Off in REPLAY_MODE. Features register their timers while the modules initialise
 * (`every`); the leadership starts at bootstrap if any was registered.
 */
@Injectable()
export class LeaderTimers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('leader');
  private readonly timers: Timer[] = [];
  private readonly leadership: AdvisoryLeadership;

  constructor(private readonly config: ClusterSchedulerConfig) {
    this.leadership = new AdvisoryLeadership({
      databaseUrl: config.DATABASE_URL,
      name: 'cluster-scheduler/leader-timers',
      checkMs: config.LEADER_CHECK_MS,
      log: (line) => this.logger.log(line),
    });
  }

  /** Runs `run` every `everyMs` on the leader; a failure is logged and the next period tries again. */
  every(name: string, everyMs: number, run: () => Promise<void>): void {
    this.timers.push({ name, everyMs, run, running: null });
  }

  onApplicationBootstrap(): void {
    if (this.config.REPLAY_MODE || !this.timers.length) return;
    this.leadership.start();
    for (const timer of this.timers) {
      timer.handle = setInterval(() => {
        if (!this.leadership.isLeader) return;
        timer.running ??= timer
          .run()
          .catch((error: unknown) => this.logger.warn(`${timer.name} failed: ${(error as Error).message}`))
          .finally(() => (timer.running = null));
      }, timer.everyMs);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer.handle);
    await Promise.all(this.timers.map((t) => t.running ?? Promise.resolve()));
    await this.leadership.stop();
  }
}
