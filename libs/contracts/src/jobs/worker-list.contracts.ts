import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** `worker.qry.list`: the endpoint's live workers (the gateway has checked the endpoint is the caller's). */
export class ListWorkersQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;
}

export const WORKER_STATUSES = ['RUNNING', 'IDLE', 'INITIALIZING', 'THROTTLED', 'UNHEALTHY'] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** One live worker of an endpoint, as its calls show it. */
export interface WorkerView {
  /** The worker's id (its pod's id). */
  id: string;
  /**
   * UNHEALTHY: its last ping said so; RUNNING: it holds a job; IDLE: it has asked for jobs and holds none;
   * INITIALIZING: it has not asked for a job yet. THROTTLED (waiting for capacity) never happens here: a worker
   * is only created once its pod is placed.
   */
  status: WorkerStatus;
  /** Silent for more than half of the broker's WORKER_LOST_AFTER_MS: it will be declared lost if it stays so. */
  isStale: boolean;
  /** The worker SDK's version from its pings (`runpod_version`), null until one says it. */
  version: string | null;
  /** Why it is UNHEALTHY, from its ping. */
  unhealthyReason: string | null;
  registeredAt: string;
  lastSeenAt: string | null;
}

/** `GET /v2/serverless/{id}/workers`: the workers and their counts by status. */
export interface WorkerList {
  workers: WorkerView[];
  summary: {
    total: number;
    running: number;
    idle: number;
    initializing: number;
    throttled: number;
    unhealthy: number;
  };
}
