import { Injectable } from '@nestjs/common';
import {
  Subjects,
  type DrainWorkersCommand,
  type DrainWorkersResult,
  type HostChangedEvent,
} from '@app/contracts';
import {
  CommandBus,
  CommandHandler,
  EventHandler,
  type CommandContext,
  type EventContext,
} from '@app/messaging';
import { DrainingPodEntity } from '../draining-pod.entity.js';
import { DrainingPodsRepository } from '../draining-pods.repository.js';

/** Who the command recorded on a host's change acts for: no account, the fleet itself. */
const FLEET_REACTION_USER = 'system:fleet';

/**
 * A host's shown state changed (`fleet.evt.host-changed`), answered by a recorded command (`endpoint.cmd.drain-
 * workers`, an id derived from the event, its time; none in REPLAY_MODE) when it concerns drains: the host became
 * DRAINING (its pods are marked: the control loop replaces the workers among them on other hosts first, then
 * terminates them), or left DRAINING (the marks go: called off, the workers stay; lost, they fail and the loop
 * replaces them as failed workers). Cluster members are never workers and are not marked. The command does the
 * work, so a rebuild marks what the live side marked.
 */
@Injectable()
export class DrainWorkersHandler {
  constructor(
    private readonly draining: DrainingPodsRepository,
    private readonly commands: CommandBus,
  ) {}

  @EventHandler(Subjects.fleet.hostChanged)
  async heard(ctx: EventContext<HostChangedEvent>): Promise<void> {
    const { hostId, state, previousState, drainDeadline, pods } = ctx.event.payload;
    if (state !== 'DRAINING' && previousState !== 'DRAINING') return;
    const podIds = [...new Set(pods.filter((pod) => !pod.clusterId).map((pod) => pod.podId))].sort();
    if (state === 'DRAINING' && !podIds.length) return;
    await this.commands.recordReaction(
      ctx.event,
      'drain-workers',
      Subjects.endpoint.drainWorkers,
      { hostId, state, drainDeadline: drainDeadline ?? null, podIds },
      FLEET_REACTION_USER,
    );
  }

  @CommandHandler(Subjects.endpoint.drainWorkers)
  async handle(ctx: CommandContext<DrainWorkersCommand>): Promise<DrainWorkersResult> {
    const { hostId, state, drainDeadline, podIds } = ctx.payload;
    const before = await this.draining.lockByHost(hostId, ctx.manager);
    const marked = state === 'DRAINING' ? [...new Set(podIds)].sort() : [];
    const keep = new Set(marked);
    const unmarked = before.map((row) => row.podId).filter((podId) => !keep.has(podId));
    await this.draining.delete(unmarked, ctx.manager);
    const since = new Map(before.map((row) => [row.podId, row.since]));
    await this.draining.upsert(
      marked.map((podId) =>
        Object.assign(new DrainingPodEntity(), {
          podId,
          hostId,
          since: since.get(podId) ?? ctx.now,
          deadline: drainDeadline ? new Date(drainDeadline) : null,
        } satisfies DrainingPodEntity),
      ),
      ctx.manager,
    );
    return { marked, unmarked };
  }
}
