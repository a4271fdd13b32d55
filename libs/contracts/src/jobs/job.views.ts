import type { WaitReason } from '../common/wait-reason.js';
import type { EndpointThrottle } from '../endpoints/endpoint-throttle.js';
import type { JobPolicy } from './job.contracts.js';
import type { JobStatus } from './job.model.js';
import type { Packed } from './payload-blobs.js';

// What the job and worker commands and queries of job.contracts.ts answer, and the views the edge shows.

export interface JobAccepted {
  id: string;
  status: JobStatus;
}

/** `job.cmd.submit`'s answer: the accepted job and, for a submit with `take`, what that take leased (as a take). */
export interface SubmitResult extends JobAccepted {
  taken?: Packed<TakeResult>;
}

/** `job.cmd.submit-many`'s answer: each job accepted, in the order of the command's items. */
export interface SubmitManyResult {
  jobs: JobAccepted[];
}

/** The status object of /status, /runsync, /status-sync and webhooks. */
export interface JobView {
  id: string;
  status: JobStatus;
  output?: unknown;
  /** FAILED (and TIMED_OUT, CANCELLED by the service) carry the reason as a string. */
  error?: string;
  /** ms from (re)queued to started. */
  delayTime?: number;
  /** ms from started to finished (or to now while running). */
  executionTime?: number;
  workerId?: string;
  retries?: number;
  /**
   * Ours, beside RunPod's fields (its clients ignore it): why an IN_QUEUE job waits (its endpoint's wait reason, or
   * QUEUED_BEHIND_OTHERS while workers are up and taking jobs). Absent for any other status, and when nothing is
   * known to hold it.
   */
  reason?: WaitReason;
}

/** `job.qry.get`: the view, and until when the job is visible (its lifetime, or its result's retention). */
export interface JobRead {
  view: JobView;
  expiresAt: string;
}

export interface StreamChunk {
  output: unknown;
  metrics?: Record<string, unknown>;
}

/** GET /stream: chunks not delivered before, in order. */
export interface StreamRead {
  id: string;
  status: JobStatus;
  stream: StreamChunk[];
}

export interface PurgeResult {
  removed: number;
  status: 'completed';
}

/**
 * The broker's recorded outcome of a purge: the answer and the ids of the jobs it removed, which a rebuild removes
 * again (recordedDecisionOf): a submit committed while the purge ran is seen or not by timing, not by the order of
 * the commands. The gateway answers without the ids.
 */
export interface PurgeOutcome extends PurgeResult {
  jobIds: string[];
}

export interface WorkerCounts {
  idle: number;
  running: number;
  initializing: number;
  unhealthy: number;
}

/** GET /health. Job counters are over the broker's HEALTH_WINDOW_MS (see docs/adr/0008-jobs-and-workers.md). */
export interface EndpointHealth {
  jobs: { completed: number; failed: number; inProgress: number; inQueue: number; retried: number };
  workers: WorkerCounts;
  /**
   * Ours, beside RunPod's fields (its clients ignore it): why the endpoint waits for workers, when the autoscaler's
   * creates are refused (a quota, the spend limit, capacity); absent otherwise. The gateway adds it from the
   * autoscaler's view of the endpoint.
   */
  throttled?: EndpointThrottle;
  /** Ours: why the endpoint's jobs wait now (the autoscaler's judgement); null when nothing holds them. */
  waitReason?: WaitReason | null;
}

/** `job.qry.queue-stats`: what the autoscaler needs to scale an endpoint. */
export interface QueueStats {
  endpointId: string;
  inQueue: number;
  inProgress: number;
  /** Queued jobs that may trigger a scale-up (not `policy.lowPriority`). */
  inQueueNonLowPriority: number;
  /** Age of the oldest queued non-low-priority job, 0 when none. */
  oldestQueuedAgeMs: number;
  /** Over the health window, like /health. */
  completed: number;
  failed: number;
  retried: number;
  workers: WorkerCounts;
  /** Workers that asked to be recycled (`stopPod: true` in job-done) and have not been seen since. */
  recycleWorkerIds: string[];
  /**
   * Workers registered that have not asked for a job yet (`workers.initializing`): their pod may be up while the
   * worker still loads, so the autoscaler counts them as starting.
   */
  initializingWorkerIds: string[];
}

/** What a worker gets from job-take: the job's id and input, and the extra fields the public service passes. */
export interface TakenJob {
  id: string;
  input: unknown;
  webhook?: string;
  s3Config?: Record<string, unknown>;
  policy?: JobPolicy;
}

export interface TakeResult {
  jobs: TakenJob[];
}

export type JobDoneOutcome = 'completed' | 'failed' | 'progress' | 'ignored';

export interface JobDoneResult {
  recorded: JobDoneOutcome;
  /** Why a result was ignored (the job is no longer leased to this worker, say). */
  reason?: string;
}

/** `worker.cmd.done-many`'s answer: each post's result, in the order of the command's items. */
export interface JobDoneManyResult {
  dones: JobDoneResult[];
}

export interface JobStreamResult {
  recorded: boolean;
  chunks: number;
  reason?: string;
}

export interface StopsResult {
  jobsToStop: string[];
}
