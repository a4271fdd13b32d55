import { Injectable } from '@nestjs/common';
import { Subjects, type HostStartFailuresEvent } from '@app/contracts';
import { CommandBus, EventHandler, type EventContext } from '@app/messaging';

/** Who reports a host's start failures to the scheduler. */
export const START_FAILURES_ACTOR_ID = 'system:pod-lifecycle-start-failures';

/**
 * Pods failed to start on a host one after the other (`pod.evt.host-start-failures`): the host is reported unhealthy
 * to the scheduler, which stops placing on it, by a recorded `fleet.cmd.report-health` whose id is derived from the
 * event (none in REPLAY_MODE: the rebuild replays the recorded command).
 */
@Injectable()
export class ReportStartFailuresHandler {
  constructor(private readonly commands: CommandBus) {}

  @EventHandler(Subjects.pod.hostStartFailures)
  heard(ctx: EventContext<HostStartFailuresEvent>): Promise<void> {
    const { hostId, reason } = ctx.event.payload;
    return this.commands.recordReaction(
      ctx.event,
      'report-health',
      Subjects.fleet.reportHealth,
      { hostId, healthy: false, source: 'start-failures', code: 'START_FAILURES', reason },
      START_FAILURES_ACTOR_ID,
    );
  }
}
