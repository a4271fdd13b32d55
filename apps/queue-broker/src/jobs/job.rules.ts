import {
  DomainError,
  ErrorCode,
  JobLimits,
  isTerminalJobStatus,
  type JobStatus,
  type JobView,
  type StreamChunk,
} from '@app/contracts';
import type { JobEntity } from './job.entity.js';

/**
 * The job state machine of the interface, as pure functions:
 *
 *   (none) ─submit→ IN_QUEUE ─take→ IN_PROGRESS ─done→ COMPLETED | FAILED
 *                      │  ↑              │  ├─ executionTimeout / ttl → TIMED_OUT
 *                      │  └─lease lost───┘  └─ cancel → CANCELLED
 *                      └─ cancel / purge → CANCELLED;   ttl → TIMED_OUT
 *   FAILED | TIMED_OUT ─retry (not expired)→ IN_QUEUE (same id and input, output cleared)
 *
 * Anything else is refused with a DomainError naming the job's status.
 */

export function isExpired(job: Pick<JobEntity, 'expiresAt'>, now: Date): boolean {
  return job.expiresAt.getTime() <= now.getTime();
}

/** A job that does not exist, is expired, or belongs to another endpoint: the same 404. */
export function notFound(jobId: string): DomainError {
  return new DomainError(
    ErrorCode.NotFound,
    `job ${jobId} does not exist on this endpoint (unknown id, or its result expired and was removed)`,
  );
}

export function visibleJob(job: JobEntity | null, endpointId: string, jobId: string, now: Date): JobEntity {
  if (!job || job.endpointId !== endpointId || isExpired(job, now)) throw notFound(jobId);
  return job;
}

export function assertCancellable(job: JobEntity): void {
  if (job.status === 'IN_QUEUE' || job.status === 'IN_PROGRESS') return;
  throw new DomainError(
    ErrorCode.InvalidState,
    `job ${job.id} is ${job.status}: only IN_QUEUE or IN_PROGRESS jobs can be cancelled`,
  );
}

export function assertRetryable(job: JobEntity): void {
  if (job.status === 'FAILED' || job.status === 'TIMED_OUT') return;
  throw new DomainError(
    ErrorCode.InvalidState,
    `job ${job.id} is ${job.status}: only FAILED or TIMED_OUT jobs can be retried`,
  );
}

/** Expiry of a job that is queued (submit, retry): its lifetime, `policy.ttl` or 24 hours. */
export function lifetimeExpiry(now: Date, ttlMs: number | null): Date {
  return new Date(now.getTime() + (ttlMs ?? JobLimits.ttlMs.default));
}

/**
 * Expiry of a job that just finished: with a `ttl`, the lifetime already set stands; otherwise the result is
 * kept for the retention of its kind (/run 30 minutes, /runsync 1 to 5 minutes).
 */
export function finishedExpiry(job: JobEntity, now: Date): Date {
  if (job.ttlMs !== null) return job.expiresAt;
  return new Date(now.getTime() + job.retentionMs);
}

export function elapsedMs(from: Date | null, to: Date): number | undefined {
  return from ? Math.max(0, to.getTime() - from.getTime()) : undefined;
}

/** The status object clients read (/status, /runsync, webhooks). */
export function toJobView(job: JobEntity, now: Date): JobView {
  const view: JobView = { id: job.id, status: job.status };
  if (job.delayTimeMs !== null) view.delayTime = job.delayTimeMs;
  if (job.executionTimeMs !== null) view.executionTime = job.executionTimeMs;
  else if (job.status === 'IN_PROGRESS') view.executionTime = elapsedMs(job.startedAt, now);
  if (job.hasOutput) view.output = job.output;
  if (job.error !== null) view.error = job.error;
  if (job.lastWorkerId) view.workerId = job.lastWorkerId;
  if (job.retries > 0) view.retries = job.retries;
  return view;
}

/** What the webhook receives: the final status object plus the input and the webhook URL. */
export function webhookBody(job: JobEntity, now: Date): Record<string, unknown> {
  return { ...toJobView(job, now), input: job.input, webhook: job.webhook };
}

export function isFinal(status: JobStatus): boolean {
  return isTerminalJobStatus(status);
}

/** Splits a string into pieces of at most `maxBytes` UTF-8 bytes, never inside a character. */
export function splitString(text: string, maxBytes: number): string[] {
  if (Buffer.byteLength(text) <= maxBytes) return [text];
  const pieces: string[] = [];
  let current = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes && current) {
      pieces.push(current);
      current = '';
      bytes = 0;
    }
    current += char;
    bytes += size;
  }
  if (current) pieces.push(current);
  return pieces;
}

/**
 * Stream chunks of at most `maxBytes` (JSON) each. A small chunk is kept as it is. A larger string is split into
 * strings; a larger array into arrays of consecutive elements; anything else larger is sent as its JSON text split
 * into strings (the client joins them).
 */
export function splitChunk(output: unknown, maxBytes: number = JobLimits.streamChunkBytes): StreamChunk[] {
  const size = Buffer.byteLength(JSON.stringify(output ?? null));
  if (size <= maxBytes) return [{ output }];
  if (typeof output === 'string') {
    // JSON escaping can grow a string (quotes, backslashes, control characters): leave room for it.
    return splitString(output, Math.floor(maxBytes / 2)).map((piece) => ({ output: piece }));
  }
  if (Array.isArray(output)) {
    const chunks: StreamChunk[] = [];
    let group: unknown[] = [];
    let groupBytes = 2;
    for (const element of output) {
      const elementBytes = Buffer.byteLength(JSON.stringify(element ?? null)) + 1;
      if (elementBytes + 2 > maxBytes) {
        if (group.length) chunks.push({ output: group });
        group = [];
        groupBytes = 2;
        chunks.push(...splitChunk(element, maxBytes));
        continue;
      }
      if (groupBytes + elementBytes > maxBytes && group.length) {
        chunks.push({ output: group });
        group = [];
        groupBytes = 2;
      }
      group.push(element);
      groupBytes += elementBytes;
    }
    if (group.length) chunks.push({ output: group });
    return chunks;
  }
  return splitString(JSON.stringify(output), Math.floor(maxBytes / 2)).map((piece) => ({ output: piece }));
}

/**
 * When the worker itself called: the long poll's `requestedAt` (never later than the command's own time), or the
 * command's time for a call the worker made directly.
 */
export function workerCallTime(requestedAt: string | undefined, now: Date): Date {
  if (!requestedAt) return now;
  const at = new Date(requestedAt);
  return Number.isNaN(at.getTime()) || at > now ? now : at;
}
