import type { ClusterCreatedEvent, ClusterDeletedEvent, CommandPayload, Subjects } from '@app/contracts';
import type { CommandBus, EventEnvelope } from '@app/messaging';

type MembersSubject = typeof Subjects.pod.createClusterMembers | typeof Subjects.pod.terminateClusterMembers;

/**
 * Answers the scheduler's `cluster.evt.created` / `deleted` with the recorded command that creates or terminates the
 * members (an id derived from the event, its time; none in REPLAY_MODE), so a rebuild applies it where the live side
 * did (docs/adr/0006, "Cluster members by recorded commands").
 */
export function recordMembersCommand<S extends MembersSubject>(
  commands: CommandBus,
  event: EventEnvelope<ClusterCreatedEvent | ClusterDeletedEvent>,
  subject: S,
): Promise<void> {
  const cluster = event.payload;
  return commands.recordReaction(event, subject, subject, { cluster } as CommandPayload<S>, cluster.ownerId);
}
