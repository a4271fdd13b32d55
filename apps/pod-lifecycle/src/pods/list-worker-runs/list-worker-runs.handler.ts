import { Injectable } from '@nestjs/common';
import { Subjects, type ListWorkerPodRunsQuery, type WorkerPodRun } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { PodRepository } from '../pod.repository.js';

/**
 * `pod.qry.list-worker-runs` (for GET /v2/serverless/{id}/workers): the caller's worker pods of the endpoint that
 * are not terminated, each with how often its container was started again (its `generation`: +1 on every start
 * after a stop and every reset or container edit; 0 for the first run).
 */
@Injectable()
export class ListWorkerRunsHandler {
  constructor(private readonly pods: PodRepository) {}

  @QueryHandler(Subjects.pod.listWorkerRuns)
  async handle(ctx: QueryContext<ListWorkerPodRunsQuery>): Promise<WorkerPodRun[]> {
    const pods = await this.pods.listWorkersOf(ctx.actor.userId, ctx.payload.endpointId);
    return pods.map((pod) => ({
      podId: pod.id,
      status: pod.status,
      restarts: pod.generation,
      lastStartedAt: pod.lastStartedAt?.toISOString() ?? null,
    }));
  }
}
