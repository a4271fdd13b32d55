import { Injectable } from '@nestjs/common';
import {
  Subjects,
  WORKER_JOB_IDS_MAX,
  type BrokerWorkerList,
  type BrokerWorkerView,
  type ListWorkersQuery,
  type WorkerStatus,
} from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import type { WorkerEntity } from '../worker.entity.js';
import { WorkersRepository } from '../workers.repository.js';

/**
 * `worker.qry.list` (GET /v2/serverless/{id}/workers): the endpoint's live workers, each with the status /health
 * counts it under, so the list and /health agree, and the jobs it holds. The gateway has checked the endpoint is the
 * caller's, and adds each worker's pod (pod-lifecycle's part) to this.
 */
@Injectable()
export class ListWorkersHandler {
  constructor(
    private readonly workers: WorkersRepository,
    private readonly config: QueueBrokerConfig,
  ) {}

  @QueryHandler(Subjects.worker.list)
  async handle(ctx: QueryContext<ListWorkersQuery>): Promise<BrokerWorkerList> {
    const now = Date.now();
    const rows = await this.workers.listAlive(
      ctx.payload.endpointId,
      new Date(now - this.config.WORKER_LOST_AFTER_MS),
      new Date(now - this.config.WORKER_INIT_TIMEOUT_MS),
      WORKER_JOB_IDS_MAX,
    );
    // Half the lost threshold: a worker this silent has missed its pings and is lost if it stays silent.
    const staleBefore = now - this.config.WORKER_LOST_AFTER_MS / 2;
    const workers = rows.map((row): BrokerWorkerView => {
      const lastSeenAt = row.lastSeenAt ? new Date(row.lastSeenAt) : null;
      return {
        id: row.id,
        status: statusOf(row),
        currentJobs: row.jobIds,
        currentJobCount: row.leased,
        isStale: lastSeenAt !== null && lastSeenAt.getTime() < staleBefore,
        version: row.version,
        unhealthyReason: row.unhealthy ? row.unhealthyReason : null,
        registeredAt: new Date(row.registeredAt).toISOString(),
        lastSeenAt: lastSeenAt?.toISOString() ?? null,
      };
    });
    const count = (status: WorkerStatus) => workers.filter((w) => w.status === status).length;
    return {
      workers,
      summary: {
        total: workers.length,
        running: count('RUNNING'),
        idle: count('IDLE'),
        initializing: count('INITIALIZING'),
        throttled: count('THROTTLED'),
        unhealthy: count('UNHEALTHY'),
      },
    };
  }
}

/** The same order of precedence as WorkersRepository.counts (what /health reports). */
function statusOf(row: WorkerEntity & { leased: number }): WorkerStatus {
  if (row.unhealthy) return 'UNHEALTHY';
  if (row.leased > 0) return 'RUNNING';
  return row.firstPollAt ? 'IDLE' : 'INITIALIZING';
}
