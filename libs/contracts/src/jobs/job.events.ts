import type { JobView } from './job.views.js';
import type { JobStatus } from './job.model.js';

/** Largest finished-job view (JSON bytes) carried in job.evt.changed. */
export const JOB_EVENT_VIEW_BYTES = 4096;

/**
 * Events of the queue broker (outbox → events stream). The gateway listens to them on core NATS to end its long
 * polls at once; nothing depends on receiving every one (the long polls re-check on a timer).
 */
export interface JobQueuedEvent {
  endpointId: string;
  jobId: string;
  /** Queued again by POST /retry (endpoint metrics count it). */
  retried?: true;
}

/** A job finished, or a streaming job has new chunks. */
export interface JobChangedEvent {
  endpointId: string;
  jobId: string;
  status: JobStatus;
  /**
   * A finished job's view and until when it is visible, when the view is at most JOB_EVENT_VIEW_BYTES: the edge
   * answers its waiters and later reads from it without asking the broker.
   */
  finished?: { view: JobView; expiresAt: string };
  /** A finished job's delay and execution time (ms; null when it never ran), whatever its size: endpoint metrics. */
  timing?: { delayMs: number | null; executionMs: number | null };
}

/**
 * The jobs of one command that were queued one after another (a batched submit's), as one event: each item is what
 * its own `job.evt.queued` would have said, in order (docs/adr/0013, "Batched job events").
 */
export interface JobQueuedManyEvent {
  jobs: JobQueuedEvent[];
}

/** The jobs of one command that changed one after another (a batched job-done's), as one event, in order. */
export interface JobChangedManyEvent {
  jobs: JobChangedEvent[];
}

/** A job leased to the worker was cancelled or timed out: job-stop should tell it. */
export interface WorkerStopRequestedEvent {
  endpointId: string;
  workerId: string;
  jobId: string;
}
