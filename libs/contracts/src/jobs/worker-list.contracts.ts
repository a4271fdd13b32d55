import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { PodStatus } from '../pods/pod-status.js';

/** `worker.qry.list`: the endpoint's live workers (the gateway has checked the endpoint is the caller's). */
export class ListWorkersQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;
}

export const WORKER_STATUSES = ['RUNNING', 'IDLE', 'INITIALIZING', 'THROTTLED', 'UNHEALTHY'] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** At most this many of a worker's current job ids are listed (`currentJobCount` is always exact). */
export const WORKER_JOB_IDS_MAX = 100;

/** One live worker of an endpoint, as the broker sees its calls (its pod's part added by the gateway). */
export interface WorkerView {
  /** The worker's id (`RUNPOD_POD_ID`: the id of the pod the autoscaler started for it). */
  id: string;
  /**
   * The pod running it: pod-lifecycle's id of a worker pod of this endpoint that is not terminated (equal to `id`
   * for the platform's workers), null for a worker the platform did not start (one run elsewhere with the
   * endpoint's key) or whose pod is gone.
   */
  podId: string | null;
  /** Its pod's status (RUNNING while its container runs), null when `podId` is. */
  podStatus: PodStatus | null;
  /**
   * UNHEALTHY: its last ping said so; RUNNING: it holds a job; IDLE: it has asked for jobs and holds none;
   * INITIALIZING: it has not asked for a job yet. THROTTLED (waiting for capacity) never happens here: a worker
   * is only created once its pod is placed.
   */
  status: WorkerStatus;
  /** The jobs it holds now (leased to it), oldest lease first, at most WORKER_JOB_IDS_MAX of them. */
  currentJobs: string[];
  /** How many jobs it holds now. */
  currentJobCount: number;
  /**
   * How many times its pod has been started again (a FLASHBOOT resume after an idle stop, a reset, an edit of its
   * container), from pod-lifecycle's record; null when `podId` is. A worker that crashes is not restarted in place:
   * the autoscaler replaces it with a new pod, which shows as a new worker.
   */
  restarts: number | null;
  /** Silent for more than half of the broker's WORKER_LOST_AFTER_MS: it will be declared lost if it stays so. */
  isStale: boolean;
  /** The worker SDK's version from its pings (`runpod_version`), null until one says it. */
  version: string | null;
  /** Why it is UNHEALTHY, from its ping. */
  unhealthyReason: string | null;
  registeredAt: string;
  /** Its last call of any kind (ping, job-take, job-done, stream): its last sign of life. */
  lastSeenAt: string | null;
}

/** What the broker knows of a worker: everything but its pod's part, which the gateway joins from pod-lifecycle. */
export type BrokerWorkerView = Omit<WorkerView, 'podId' | 'podStatus' | 'restarts'>;

/** `worker.qry.list`'s answer: the broker's part of each worker. */
export interface BrokerWorkerList {
  workers: BrokerWorkerView[];
  summary: WorkerList['summary'];
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
