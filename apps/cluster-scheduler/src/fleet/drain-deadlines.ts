import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Subjects, type Actor } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { LeaderTimers } from '../leader-timers.js';
import { HostsRepository } from './hosts.repository.js';

const SYSTEM: Actor = { userId: 'system', kind: 'system', reason: "a host drain's deadline passed" };

/**
 * Every FLEET_DRAIN_CHECK_MS the leader (LeaderTimers) looks for a drain whose deadline passed and not reported
 * yet (one indexed read), and only then records `fleet.cmd.expire-drains`, dated after the deadline: the command,
 * not this timer, decides which drains expired, so a rebuild replays the same.
 */
@Injectable()
export class DrainDeadlines implements OnModuleInit {
  constructor(
    private readonly commands: CommandBus,
    private readonly config: ClusterSchedulerConfig,
    private readonly timers: LeaderTimers,
    private readonly hosts: HostsRepository,
  ) {}

  onModuleInit(): void {
    if (this.config.FLEET_DRAIN_CHECK_MS === 0) return;
    this.timers.every('drain deadlines', this.config.FLEET_DRAIN_CHECK_MS, async () => {
      await this.check();
    });
  }

  /** Records fleet.cmd.expire-drains when a deadline is due at `now`; true when it did. */
  async check(now = new Date()): Promise<boolean> {
    if (!(await this.hosts.drainDue(now))) return false;
    await this.commands.execute(Subjects.fleet.expireDrains, {}, SYSTEM, { timeoutMs: 30_000 });
    return true;
  }
}
