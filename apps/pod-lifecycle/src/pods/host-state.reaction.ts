import { Injectable } from '@nestjs/common';
import { Subjects, type DrainExpiredEvent, type HostChangedEvent } from '@app/contracts';
import { CommandBus, EventHandler, type EventContext } from '@app/messaging';

/** Who the commands recorded in answer to the fleet's events act for: no account, the fleet itself. */
export const FLEET_REACTION_USER = 'system:fleet';

/**
 * The scheduler's word on a host's state, answered by recorded commands (ids derived from the event, its time; none
 * in REPLAY_MODE), which do the work, so a rebuild applies them where the live side did:
 * - UNHEALTHY or GONE: `pod.cmd.host-lost`, the host's live pods go ERROR;
 * - DRAINING: `pod.cmd.host-notice`, its users' live pods are told when they are stopped;
 * - READY or CORDONED after DRAINING (the drain called off): `pod.cmd.host-notice`, the notices go;
 * - the drain's deadline (`fleet.evt.drain-expired`): `pod.cmd.host-drained`, what is left is stopped.
 */
@Injectable()
export class HostStateReactions {
  constructor(private readonly commands: CommandBus) {}

  @EventHandler(Subjects.fleet.hostChanged)
  async hostChanged(ctx: EventContext<HostChangedEvent>): Promise<void> {
    const { hostId, state, previousState, reason, healthCode, drainDeadline, pods } = ctx.event.payload;
    const event = ctx.event;
    if (state === 'UNHEALTHY' || state === 'GONE') {
      const payload = { hostId, state, reason: reason ?? null, healthCode: healthCode ?? null, pods };
      await this.commands.recordReaction(
        event,
        'host-lost',
        Subjects.pod.hostLost,
        payload,
        FLEET_REACTION_USER,
      );
    } else if (state === 'DRAINING' || previousState === 'DRAINING') {
      const payload = { hostId, state, reason: reason ?? null, drainDeadline: drainDeadline ?? null, pods };
      await this.commands.recordReaction(
        event,
        'host-notice',
        Subjects.pod.hostNotice,
        payload,
        FLEET_REACTION_USER,
      );
    }
  }

  @EventHandler(Subjects.fleet.drainExpired)
  async drainExpired(ctx: EventContext<DrainExpiredEvent>): Promise<void> {
    const { hostId, pods } = ctx.event.payload;
    await this.commands.recordReaction(
      ctx.event,
      'host-drained',
      Subjects.pod.hostDrained,
      { hostId, pods },
      FLEET_REACTION_USER,
    );
  }
}
