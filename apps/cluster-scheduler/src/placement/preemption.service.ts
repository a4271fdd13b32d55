import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  PREEMPTED_ACTION,
  Subjects,
  deriveId,
  personOf,
  priorityOf,
  type AuditEntry,
  type PreemptedEvent,
} from '@app/contracts';
import type { CommandContext } from '@app/messaging';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { PreemptionEntity } from '../quotas/preemption.entity.js';
import type { Ledger } from '../quotas/quota-ledger.js';
import { QuotasRepository } from '../quotas/quotas.repository.js';
import { HoldersRepository } from './holders.repository.js';
import { DEFAULT_PLUGINS } from './plugins/index.js';
import type { PlacementRequest } from './placement.js';
import { PlacementRepository } from './placement.repository.js';
import { paceKey, planPreemption, type PreemptionPlan, type Victim } from './preemption-plan.js';

/** Who asks for the GPUs: the command placing them and the workload (pod or cluster) it places. */
export interface PreemptingAsk {
  ctx: Pick<CommandContext<unknown>, 'envelope' | 'emit' | 'now'>;
  ownerId: string;
  workloadId: string;
  priority: number;
  interruptible: boolean;
}

const PACE_WINDOW_MS = 60_000;

/**
 * Plans a preemption over a snapshot (preemption-plan.ts) and applies it in the placement's transaction: the
 * victims' reservations are released, each preemption is recorded (the pace limit counts them), and the
 * `placement.evt.preempted` event (pod-lifecycle stops the pods) and the owners' audit entries leave with the
 * transaction's outbox. All of it is part of the placing command, so a rebuild preempts the same workloads.
 */
@Injectable()
export class Preemption {
  constructor(
    private readonly placements: PlacementRepository,
    private readonly holders: HoldersRepository,
    private readonly quotas: QuotasRepository,
    private readonly config: ClusterSchedulerConfig,
  ) {}

  async preempt(
    manager: EntityManager,
    ask: PreemptingAsk,
    request: PlacementRequest,
    found: Ledger | null,
  ): Promise<PreemptionPlan> {
    if (request.gpuTypeId === null) return { ok: false, why: 'CPU pods preempt nothing', paced: false };
    const ledger: Ledger = found ?? { gpuTypeId: request.gpuTypeId, own: null, peers: [], usage: [] };
    const accounts = [ask.ownerId, ...ledger.peers.map((p) => p.accountId)];
    const [holders, snapshot, recent] = await Promise.all([
      this.holders.ofType(request.gpuTypeId, accounts, manager),
      this.placements.snapshot(manager, request, true),
      this.quotas.preemptionsSince(new Date(ask.ctx.now.getTime() - PACE_WINDOW_MS), manager),
    ]);
    const plan = planPreemption({
      ask: {
        accountId: ask.ownerId,
        cohort: ledger.own?.cohort ?? null,
        priority: ask.priority,
        interruptible: ask.interruptible,
        gpus: request.podCount * request.gpusPerPod,
      },
      ledger,
      holders,
      snapshot,
      request,
      plugins: DEFAULT_PLUGINS,
      paceLeft: (key) => Math.max(0, this.config.PREEMPTIONS_PER_MINUTE - (recent.get(key) ?? 0)),
    });
    if (plan.ok) await this.apply(manager, ask, plan.victims);
    return plan;
  }

  private async apply(manager: EntityManager, ask: PreemptingAsk, victims: Victim[]): Promise<void> {
    const { envelope, now } = ask.ctx;
    for (const holder of victims.flatMap((v) => v.holders)) {
      await this.placements.release(manager, holder.podId);
    }
    await this.quotas.recordPreemptions(
      victims.map((v) =>
        Object.assign(new PreemptionEntity(), {
          id: deriveId(envelope.commandId, `preempt/${v.id}`),
          at: now,
          preemptorAccountId: ask.ownerId,
          preemptorWorkloadId: ask.workloadId,
          victimOwnerId: v.ownerId,
          victimCohort: paceKey(v.holders[0]),
          workloadId: v.id,
          podIds: v.holders.map((h) => h.podId).sort(),
          gpus: v.gpus,
          reason: v.reason,
        }),
      ),
      manager,
    );
    const priority = priorityOf(ask.priority);
    const event: PreemptedEvent = {
      preemptor: { accountId: ask.ownerId, workloadId: ask.workloadId, priority },
      workloads: victims.map((v) => ({
        ownerId: v.ownerId,
        podIds: v.holders.map((h) => h.podId).sort(),
        clusterId: v.clusterId,
        reason: v.reason,
      })),
    };
    await ask.ctx.emit(Subjects.placement.preempted, event, 'preempted');
    for (const v of victims) {
      const entry: AuditEntry = {
        id: `aud_${deriveId(envelope.commandId, `audit/preempted/${v.id}`)}`,
        at: envelope.issuedAt,
        accountId: v.ownerId,
        actor: {
          userId: personOf(envelope.actor),
          kind: envelope.actor.kind,
          reason: `preempted for ${ask.ownerId}'s ${priority}-priority ${ask.workloadId} (${v.reason})`,
        },
        action: PREEMPTED_ACTION,
        resourceType: v.clusterId ? 'cluster' : 'pod',
        resourceId: v.id,
        outcome: { ok: true },
        details: {
          preemptorAccountId: ask.ownerId,
          preemptorWorkloadId: ask.workloadId,
          reason: v.reason,
          gpus: String(v.gpus),
        },
        commandId: envelope.commandId,
      };
      await ask.ctx.emit(Subjects.audit.recorded, entry, `audit/preempted/${v.id}`);
    }
  }
}
