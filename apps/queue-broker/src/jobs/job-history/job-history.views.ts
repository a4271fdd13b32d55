import {
  JOB_PREVIEW_CHARS,
  type JobDetailView,
  type JobListView,
  type JobSummaryView,
  type PayloadPreview,
} from '@app/contracts';
import type { JobDetailRow, JobListRow } from './job-history.repository.js';

/** The start of a payload's text (the query read one character more than shown, to know it was cut). */
export function previewOf(text: string | null, bytes: number | null): PayloadPreview | null {
  if (text === null || bytes === null) return null;
  const truncated = text.length > JOB_PREVIEW_CHARS;
  return { preview: truncated ? text.slice(0, JOB_PREVIEW_CHARS) : text, bytes, truncated };
}

const iso = (at: Date | string | null): string | null => (at === null ? null : new Date(at).toISOString());

function summaryFields(row: JobListRow, now: Date): Omit<JobSummaryView, 'input' | 'output' | 'error'> {
  return {
    id: row.id,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: iso(row.started_at),
    completedAt: iso(row.finished_at),
    delayTime: row.delay_time_ms,
    executionTime: row.execution_time_ms,
    workerId: row.last_worker_id,
    attempts: row.attempts,
    retries: row.retries,
    sync: row.sync,
    inputBytes: row.input_bytes,
    outputBytes: row.output_bytes,
    errorBytes: row.error_bytes,
    resultExpiresAt: new Date(row.expires_at).toISOString(),
    resultExpired: row.archived || new Date(row.expires_at).getTime() <= now.getTime(),
  };
}

export function toJobSummary(row: JobListRow, now: Date): JobSummaryView {
  return {
    ...summaryFields(row, now),
    input: previewOf(row.input_preview, row.input_bytes),
    output: previewOf(row.output_preview, row.output_bytes),
    error: previewOf(row.error_preview, row.error_bytes),
  };
}

/** A page: `limit` rows of the `limit + 1` read, and the cursor after the last one when there were more. */
export function toJobList(rows: JobListRow[], limit: number, now: Date): JobListView {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    jobs: page.map((row) => toJobSummary(row, now)),
    next:
      rows.length > limit && last
        ? { createdAt: new Date(last.created_at).toISOString(), id: last.id }
        : null,
  };
}

/**
 * The whole job. Phases: queued is its delayTime (from its last queueing to its start), running its executionTime
 * (or from its start to now while it runs), total from its creation to its end (or now).
 */
export function toJobDetail(row: JobDetailRow, now: Date): JobDetailView {
  const end = row.finished_at ? new Date(row.finished_at).getTime() : now.getTime();
  const started = row.started_at ? new Date(row.started_at).getTime() : null;
  const running = row.execution_time_ms ?? (started !== null && !row.finished_at ? end - started : null);
  return {
    ...summaryFields(row, now),
    endpointId: row.endpoint_id,
    ...(row.kept ? { input: row.input } : {}),
    ...(row.kept && row.has_output ? { output: row.output } : {}),
    ...(row.kept && row.error !== null ? { error: row.error } : {}),
    phases: {
      queued: row.delay_time_ms,
      running,
      total: Math.max(0, end - new Date(row.created_at).getTime()),
    },
    leases: row.leases.map((lease) => ({
      attempt: lease.attempt,
      workerId: lease.workerId,
      startedAt: new Date(lease.startedAt).toISOString(),
      endedAt: iso(lease.endedAt),
      outcome: lease.outcome,
    })),
    streamChunks: row.stream_chunks,
  };
}
