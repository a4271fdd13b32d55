import { createHash } from 'node:crypto';

/** The job states of the interface. */
export const JOB_STATUSES = [
  'IN_QUEUE',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

export function isTerminalJobStatus(status: string): boolean {
  return (TERMINAL_JOB_STATUSES as readonly string[]).includes(status);
}

const MiB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;

/** The limits of the interface and of compatibility.md §1, in one place for the edge and the broker. */
export const JobLimits = {
  /** Largest POST /run body. */
  runBodyBytes: 10 * MiB,
  /** Largest POST /runsync body. */
  runsyncBodyBytes: 20 * MiB,
  /** Largest job-done / job-stream body the edge reads; a larger result fails the job with the reason. */
  workerBodyBytes: 100 * MiB,
  /** Largest output kept for a job; a larger one fails the job with a clear reason. */
  outputBytes: 20 * MiB,
  /** Largest stored stream chunk; larger output is split across chunks. */
  streamChunkBytes: MiB,
  runsyncWaitMs: { min: 1000, max: 300_000, default: 90_000 },
  statusSyncWaitMs: { min: 1000, max: 300_000, default: 90_000 },
  executionTimeoutMs: { min: 5000, max: 7 * DAY_MS, default: 600_000 },
  ttlMs: { min: 10_000, max: 7 * DAY_MS, default: DAY_MS },
  /** Results of /run jobs are kept this long after they finish. */
  runRetentionMs: 30 * 60_000,
  /** Results of /runsync jobs: 1 minute, up to 5 minutes when a longer `wait` was asked for. */
  runsyncRetentionMs: { min: 60_000, max: 300_000 },
  /** job-take-batch: most jobs handed out by one call. */
  maxBatchSize: 64,
} as const;

/**
 * Job ids are opaque and UUID-like, derived from the submitting command (a replay rebuilds the same id); /runsync
 * jobs carry the `sync-` prefix as the public service's do.
 */
export function jobIdFor(commandId: string, sync: boolean): string {
  const h = createHash('sha256').update(`job/${commandId}`).digest('hex');
  const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  return sync ? `sync-${uuid}` : uuid;
}

/** Retention of a finished job's result when no `ttl` was given. */
export function retentionFor(sync: boolean, waitMs: number | undefined): number {
  if (!sync) return JobLimits.runRetentionMs;
  const { min, max } = JobLimits.runsyncRetentionMs;
  return Math.min(max, Math.max(min, waitMs ?? min));
}
