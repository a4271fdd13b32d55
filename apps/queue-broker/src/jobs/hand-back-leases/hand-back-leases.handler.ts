import { Injectable } from '@nestjs/common';
import { Subjects, type HostChangedEvent, type PreemptedEvent } from '@app/contracts';
import { CommandBus, EventHandler, type EventContext } from '@app/messaging';

/** Who a sweep recorded on a host's loss acts for: no account, the fleet itself. */
const FLEET_REACTION_USER = 'system:fleet';

/**
 * Workers that will never finish the jobs they hold: a serverless worker is a pod whose worker id is its pod id.
 * Rather than wait WORKER_LOST_AFTER_MS for its silence, the broker records a sweep (`job.cmd.sweep`, an id derived
 * from the event, its time; none in REPLAY_MODE) naming the pods, which marks those that are workers lost and
 * queues their jobs again (each such lease is an attempt, as any lost worker's: FAILED after JOB_MAX_ATTEMPTS).
 * The work is the recorded command's, so a rebuild hands the jobs back where the live side did. Two causes:
 * - the scheduler preempted pods (`placement.evt.preempted`): `preemptedWorkerIds`;
 * - a host became UNHEALTHY or GONE (`fleet.evt.host-changed`): `lostHost`, its pods. Other states leave the
 *   workers running (a draining host's are replaced by the autoscaler, then stopped).
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

  @EventHandler(Subjects.fleet.hostChanged)
  async hostChanged(ctx: EventContext<HostChangedEvent>): Promise<void> {
    const { hostId, state, reason, pods } = ctx.event.payload;
    if (state !== 'UNHEALTHY' && state !== 'GONE') return;
    // Cluster members are never workers.
    const workerIds = [...new Set(pods.filter((pod) => !pod.clusterId).map((pod) => pod.podId))].sort();
    if (!workerIds.length) return;
    await this.commands.recordReaction(
      ctx.event,
      'hand-back-leases',
      Subjects.job.sweep,
      { detectLostWorkers: false, lostHost: { hostId, state, reason: reason ?? null, workerIds } },
      FLEET_REACTION_USER,
    );
  }
}
