import type { JobStatus } from './job.model.js';

/**
 * Events of the queue broker (outbox → events stream). The gateway listens to them on core NATS to end its long
 * polls at once; nothing depends on receiving every one (the long polls re-check on a timer).
 */
export interface JobQueuedEvent {
  endpointId: string;
  jobId: string;
}

/** A job finished, or a streaming job has new chunks. */
export interface JobChangedEvent {
  endpointId: string;
  jobId: string;
  status: JobStatus;
}

/** A job leased to the worker was cancelled or timed out: job-stop should tell it. */
export interface WorkerStopRequestedEvent {
  endpointId: string;
  workerId: string;
  jobId: string;
}
