import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Subjects, type Actor } from '@app/contracts';
import { CommandBus } from '@app/messaging';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { LeaderTimers } from '../leader-timers.js';

const SYSTEM: Actor = { userId: 'system', kind: 'system', reason: 'quota samples for the charts' };

/**
 * Every QUOTA_SAMPLE_INTERVAL_MS the leader (LeaderTimers) issues `quota.cmd.sample`; a recorded command, so a
 * rebuild has the same history. Off in REPLAY_MODE, where the samples are replayed.
 */
@Injectable()
export class QuotaSampler implements OnModuleInit {
  constructor(
    private readonly commands: CommandBus,
    private readonly config: ClusterSchedulerConfig,
    private readonly timers: LeaderTimers,
  ) {}

  onModuleInit(): void {
    if (this.config.QUOTA_SAMPLE_INTERVAL_MS === 0) return;
    this.timers.every('quota sample', this.config.QUOTA_SAMPLE_INTERVAL_MS, async () => {
      await this.commands.execute(Subjects.quota.sample, {}, SYSTEM, { timeoutMs: 30_000 });
    });
  }
}
