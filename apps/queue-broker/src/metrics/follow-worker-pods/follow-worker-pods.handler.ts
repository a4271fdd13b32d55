import { Injectable } from '@nestjs/common';
import { PodStatus, Subjects, type PodStatusChangedEvent } from '@app/contracts';
import { EventHandler, type EventContext } from '@app/messaging';
import { WorkerStartsRepository } from '../worker-starts.repository.js';

/**
 * Follows pod-lifecycle's status events of worker pods (those naming an endpoint): the first STARTING (image pulled)
 * and RUNNING of each are its cold start's runtime phases (worker-start.entity.ts). Applied once per event (its
 * processed row) at the event's time, so a rebuild, whose replayed pod commands emit the same events, writes the
 * same times. Any other pod's event, or another status, writes nothing.
 */
@Injectable()
export class FollowWorkerPodsHandler {
  constructor(private readonly starts: WorkerStartsRepository) {}

  @EventHandler(Subjects.pod.statusChanged)
  async handle(ctx: EventContext<PodStatusChangedEvent>): Promise<void> {
    const { podId, endpointId, status, at } = ctx.event.payload;
    if (!endpointId) return;
    const reached =
      status === PodStatus.Starting ? 'starting' : status === PodStatus.Running ? 'running' : null;
    if (reached) await this.starts.reached(podId, endpointId, reached, new Date(at), ctx.manager);
  }
}
