import { Injectable } from '@nestjs/common';
import { Subjects, type ListPodStatesQuery, type PodStateView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';

/**
 * `pod.qry.states`: the lifecycle state of the pods asked for, in one primary-key read, for a controller that
 * watches many pods on every pass (the autoscaler's control loop asks for all its workers at once, instead of one
 * `pod.qry.get` each). Unknown pods are left out, and so, for a user, are other users' pods; a system actor sees any.
 */
@Injectable()
export class ListPodStatesHandler {
  constructor(private readonly pods: PodRepository) {}

  @QueryHandler(Subjects.pod.states)
  async handle(ctx: QueryContext<ListPodStatesQuery>): Promise<PodStateView[]> {
    const states = await this.pods.statesOf(ctx.payload.podIds);
    const system = ctx.actor.kind === 'system';
    return states
      .filter((pod) => system || pod.ownerId === ctx.actor.userId)
      .map(({ id, status, desiredStatus, statusReason, lastStatusChange }) => ({
        id,
        status,
        desiredStatus,
        statusReason,
        lastStatusChange: lastStatusChange.toISOString(),
      }));
  }
}
