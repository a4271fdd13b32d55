import { Injectable } from '@nestjs/common';
import {
  Subjects,
  accrue,
  assertUnderSpendLimit,
  effectiveSpendLimit,
  monthStartOf,
  roundMoney,
  type Actor,
  type SpendStatus,
} from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { PodUsageReader } from './pod-usage.reader.js';
import { SpendLimitsRepository } from './spend-limits.repository.js';

/**
 * A user's spend this month against their limit (docs/adr/0023-spend-limits.md). The spend is ADR 21's metering
 * read up to an instant `at` (the command's time when a command asks), never the wall clock: pods, cluster members
 * and serverless workers from pod_usage here, network volumes from the scheduler's volume_usage. Intervals are cut
 * at `at`, so a replay, which rebuilds the same intervals in the same order, reaches the same answer.
 */
@Injectable()
export class SpendLedger {
  constructor(
    private readonly limits: SpendLimitsRepository,
    private readonly usage: PodUsageReader,
    private readonly queries: QueryBus,
  ) {}

  /**
   * Refuses new GPU work (`what`) with SPEND_LIMIT_REACHED when the actor's user has reached their limit. A user
   * without a limit costs one primary-key lookup.
   */
  async assertUnderLimit(actor: Actor, at: Date, what: string): Promise<void> {
    assertUnderSpendLimit(await this.status(actor, at, { check: true }), what);
  }

  /**
   * The user's limits and their spend this month (UTC) up to `at`; with `check`, the spend is counted only when a
   * limit applies (a user without one costs one primary-key lookup).
   */
  async status(actor: Actor, at: Date, { check = false } = {}): Promise<SpendStatus> {
    const from = monthStartOf(at);
    const row = await this.limits.find(actor.userId);
    const operatorLimit = row?.operatorLimit ?? null;
    const userLimit = row?.userLimit ?? null;
    const monthlyLimit = effectiveSpendLimit(operatorLimit, userLimit);
    const counted = at > from && (!check || monthlyLimit !== null);
    const spend = counted ? await this.spend(actor, from, at) : 0;
    return {
      userId: actor.userId,
      operatorLimit,
      userLimit,
      monthlyLimit,
      month: from.toISOString().slice(0, 7),
      startTime: from.toISOString(),
      endTime: at.toISOString(),
      spend,
      reached: monthlyLimit !== null && spend >= monthlyLimit,
    };
  }

  private async spend(actor: Actor, from: Date, to: Date): Promise<number> {
    const [pods, volumes] = await Promise.all([
      this.podSpend(actor.userId, from, to),
      this.queries.query(
        Subjects.volume.usage,
        { from: from.toISOString(), to: to.toISOString(), bucket: 'day' },
        actor,
      ),
    ]);
    return roundMoney(pods + volumes.reduce((sum, record) => sum + record.cost, 0));
  }

  private async podSpend(ownerId: string, from: Date, to: Date): Promise<number> {
    const rows = await this.usage.overlapping(ownerId, from, to);
    const intervals = rows.map((row) => ({ ...row, key: row.kind }));
    return accrue(intervals, { from, to, now: to }, 'day').reduce((sum, a) => sum + a.cost, 0);
  }
}
