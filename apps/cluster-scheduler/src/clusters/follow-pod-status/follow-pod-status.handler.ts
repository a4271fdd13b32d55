import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type PodStatusChangedEvent } from '@app/contracts';
import { CommandBus, EventHandler, type EventContext } from '@app/messaging';
import { PlacementRepository } from '../../placement/placement.repository.js';
import { ClustersRepository, type MemberStatus, type MemberStatusChange } from '../clusters.repository.js';

/** `22` → `22/tcp` when the member exposes 22/tcp: pod-lifecycle may key mappings by bare port. */
function normalizeMappings(
  mappings: Record<string, number>,
  ports: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(mappings)) {
    const spec = key.includes('/') ? key : ports.find((p) => p.split('/')[0] === key);
    if (spec) out[spec] = value;
  }
  return out;
}

/**
 * Whether an event changes what the member shows. Two replicas may handle one pod's events in either order: a later
 * time wins; of two at the same time (one command's transitions, such as a member created and terminated at once
 * because its cluster was deleted first) the one that follows the member's status, or repeats it, never the one
 * before it, so both orders end where applying them in order ends.
 */
function follows(
  member: MemberStatus,
  at: Date,
  event: Pick<PodStatusChangedEvent, 'status' | 'previousStatus'>,
): boolean {
  const diff = at.getTime() - member.statusAt.getTime();
  if (diff !== 0) return diff > 0;
  return member.status === event.status || member.status === event.previousStatus;
}

/**
 * Follows pod-lifecycle's status events: a member's status drives its cluster's summary, primary and
 * sshEndpoint; any pod reaching EXITED or TERMINATED gives back its GPUs and ports by a recorded
 * `placement.cmd.release` (an id derived from the event, so a redelivery records nothing new; `notAfter` the event's
 * time, so a reservation newer than the event, made to resume the pod, is kept). The release changes the placement
 * ledger, which later placements read: made here, by the event's handling, its place among the placements was
 * timing, and a rebuild (which does not issue it again: REPLAY_MODE) applies it where it was recorded.
 */
@Injectable()
export class FollowPodStatusHandler {
  constructor(
    private readonly clusters: ClustersRepository,
    private readonly placement: PlacementRepository,
    private readonly commands: CommandBus,
  ) {}

  @EventHandler(Subjects.pod.statusChanged)
  async handle(ctx: EventContext<PodStatusChangedEvent>): Promise<void> {
    const { payload } = ctx.event;
    const { manager } = ctx;
    const at = new Date(payload.at);
    // Locked: without it, an older event handled beside a newer one (the other replica's) read the member before
    // the newer status committed and overwrote it (found by the two-replica randomized history). Both reads leave
    // together, one round trip: Postgres runs a connection's statements in order, so the reservation is still read
    // once the member's lock is granted, as when each was awaited.
    const [member, reserved] = await Promise.all([
      this.clusters.lockMember(payload.podId, manager),
      this.placement.reservedPortMappings(payload.podId, manager),
    ]);
    if (member && follows(member, at, payload)) {
      const change: MemberStatusChange = { status: payload.status, statusAt: at };
      const ports = Object.keys(reserved ?? member.portMappings);
      const mappings = normalizeMappings(payload.portMappings ?? {}, ports);
      if (Object.keys(mappings).length) change.portMappings = mappings;
      else if (reserved) change.portMappings = reserved;
      if (payload.publicIp) change.publicIp = payload.publicIp;
      if (payload.hostId) change.hostId = payload.hostId;
      await this.clusters.updateMemberStatus(member.podId, change, manager);
    }
    if (payload.status === PodStatus.Exited || payload.status === PodStatus.Terminated) {
      await this.commands.recordReaction(
        ctx.event,
        'release',
        Subjects.placement.release,
        { podId: payload.podId, notAfter: payload.at },
        payload.ownerId,
      );
    }
  }
}
