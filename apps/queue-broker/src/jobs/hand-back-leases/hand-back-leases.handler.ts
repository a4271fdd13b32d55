import { Injectable } from '@nestjs/common';
import { Subjects, type PreemptedEvent } from '@app/contracts';
import { CommandBus, EventHandler, type EventContext } from '@app/messaging';

/**
 * The scheduler preempted pods (`placement.evt.preempted`): a serverless worker is a pod whose worker id is its pod
 * id, and it will never finish the jobs it holds. Rather than wait WORKER_LOST_AFTER_MS for its silence, the broker
 * records a sweep naming every preempted pod (`job.cmd.sweep` with `preemptedWorkerIds`, an id derived from the
 * event, its time; none in REPLAY_MODE), which marks those that are workers lost and queues their jobs again. The
 * work is the recorded command's, so a rebuild hands the jobs back where the live side did.
 */
@Injectable()
export class HandBackLeasesHandler {
  constructor(private readonly commands: CommandBus) {}

  @EventHandler(Subjects.placement.preempted)
  async heard(ctx: EventContext<PreemptedEvent>): Promise<void> {
    const { preemptor, workloads } = ctx.event.payload;
    const podIds = [...new Set(workloads.flatMap((workload) => workload.podIds))].sort();
    if (!podIds.length) return;
    await this.commands.recordReaction(
      ctx.event,
      'hand-back-leases',
      Subjects.job.sweep,
      { detectLostWorkers: false, preemptedWorkerIds: podIds },
      preemptor.accountId,
    );
  }
}
