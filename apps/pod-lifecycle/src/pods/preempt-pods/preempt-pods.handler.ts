import { Injectable } from '@nestjs/common';
import {
  PREEMPTED_REASON,
  PodStatus,
  Subjects,
  type PreemptPodsCommand,
  type PreemptPodsResult,
  type PreemptedEvent,
  type PreemptedWorkload,
  type Preemptor,
} from '@app/contracts';
import {
  CommandBus,
  CommandHandler,
  EventHandler,
  type CommandContext,
  type EventContext,
} from '@app/messaging';
import { PodRepository } from '../pod.repository.js';
import { isLive } from '../pod-status-machine.js';
import { PodTransitions } from '../pod-transitions.js';

/** The status reason of a preempted pod: PREEMPTED first (what clients and the autoscaler match), then who and why. */
export function preemptedReason(preemptor: Preemptor, workload: Pick<PreemptedWorkload, 'reason'>): string {
  const { accountId, workloadId, priority } = preemptor;
  return `${PREEMPTED_REASON}: by ${accountId} for ${workloadId} (${priority}, ${workload.reason})`;
}

/**
 * The scheduler preempted holders for a placement (`placement.evt.preempted`, sent in the transaction that gave
 * their GPUs away): their live pods go EXITED as a stop leaves them (wanted EXITED, container disk kept), with a
 * reason that starts with PREEMPTED and names the preemptor. Their status events follow as for a stop; the
 * scheduler's release on EXITED then finds nothing left to free. A later start is a resume like any other: it
 * reserves the GPUs again, and the scheduler may refuse it (capacity, quota). Pods no longer live (stopped or
 * terminated meanwhile) are left alone, so the command applies once however often it comes. The event is answered
 * by a recorded command (`pod.cmd.preempt`, an id derived from the event; none in REPLAY_MODE), which does the
 * work: a rebuild stops the pods where the live side did.
 */
@Injectable()
export class PreemptPodsHandler {
  constructor(
    private readonly pods: PodRepository,
    private readonly transitions: PodTransitions,
    private readonly commands: CommandBus,
  ) {}

  @EventHandler(Subjects.placement.preempted)
  heard(ctx: EventContext<PreemptedEvent>): Promise<void> {
    const { preemptor, workloads } = ctx.event.payload;
    const payload: PreemptPodsCommand = { preemptor, workloads };
    return this.commands.recordReaction(
      ctx.event,
      'preempt',
      Subjects.pod.preempt,
      payload,
      preemptor.accountId,
    );
  }

  @CommandHandler(Subjects.pod.preempt)
  async handle(ctx: CommandContext<PreemptPodsCommand>): Promise<PreemptPodsResult> {
    const { preemptor, workloads } = ctx.payload;
    const reasons = new Map<string, { ownerId: string; reason: string }>();
    for (const workload of workloads) {
      const reason = preemptedReason(preemptor, workload);
      for (const podId of workload.podIds) {
        if (!reasons.has(podId)) reasons.set(podId, { ownerId: workload.ownerId, reason });
      }
    }
    const preempted: string[] = [];
    // In id order, as every command that locks several pods, so two of them never wait on each other in a circle.
    for (const podId of [...reasons.keys()].sort()) {
      const { ownerId, reason } = reasons.get(podId)!;
      const pod = await this.pods.lockById(podId, ctx.manager);
      // Another owner's pod of that id is not the holder the scheduler released.
      if (!pod || pod.ownerId !== ownerId || !isLive(pod.status)) continue;
      pod.desiredStatus = PodStatus.Exited;
      await this.transitions.changeStatus(pod, PodStatus.Exited, ctx, reason);
      preempted.push(pod.id);
    }
    return { podIds: preempted };
  }
}
