import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import {
  JOB_PREVIEW_CHARS,
  type JobAttemptView,
  type JobStatus,
  type ListEndpointJobsQuery,
} from '@app/contracts';

/** One row of the list, from `jobs` (live: previews while the result is kept) or `job_history` (none). */
export interface JobListRow {
  id: string;
  status: JobStatus;
  sync: boolean;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  delay_time_ms: number | null;
  execution_time_ms: number | null;
  last_worker_id: string | null;
  attempts: number;
  retries: number;
  expires_at: Date;
  /** From `job_history`: its result has expired whatever the time. */
  archived: boolean;
  input_bytes: number;
  output_bytes: number | null;
  error_bytes: number | null;
  input_preview: string | null;
  output_preview: string | null;
  error_preview: string | null;
}

/** One job whole: its payloads while its result is kept (`kept`), its leases and stream chunk count. */
export interface JobDetailRow extends JobListRow {
  endpoint_id: string;
  kept: boolean;
  input: unknown;
  output: unknown;
  has_output: boolean;
  error: string | null;
  stream_chunks: number;
  leases: JobAttemptView[];
}

// The sizes are of the JSON text Postgres prints for a jsonb value (`::text`), computed once per row (LATERAL).
const LIVE_COLUMNS = `j.id, j.status, j.sync, j.created_at, j.started_at, j.finished_at, j.delay_time_ms,
  j.execution_time_ms, j.last_worker_id, j.attempts, j.retries, j.expires_at, false AS archived,
  octet_length(p.input_text) AS input_bytes, octet_length(p.output_text) AS output_bytes,
  octet_length(j.error) AS error_bytes,
  CASE WHEN j.expires_at > $2 THEN left(p.input_text, ${JOB_PREVIEW_CHARS + 1}) END AS input_preview,
  CASE WHEN j.expires_at > $2 THEN left(p.output_text, ${JOB_PREVIEW_CHARS + 1}) END AS output_preview,
  CASE WHEN j.expires_at > $2 THEN left(j.error, ${JOB_PREVIEW_CHARS + 1}) END AS error_preview`;
const LIVE_FROM = `queue_broker.jobs j,
  LATERAL (SELECT j.input::text AS input_text, CASE WHEN j.has_output THEN j.output::text END AS output_text) p`;
const HISTORY_COLUMNS = `h.id, h.status, h.sync, h.created_at, h.started_at, h.finished_at, h.delay_time_ms,
  h.execution_time_ms, h.last_worker_id, h.attempts, h.retries, h.result_expired_at AS expires_at, true AS archived,
  h.input_bytes, h.output_bytes, h.error_bytes,
  NULL::text AS input_preview, NULL::text AS output_preview, NULL::text AS error_preview`;

/**
 * The endpoint's job history (docs/adr/0042-job-history.md): jobs live in `jobs` until their result expires, then
 * the sweep moves what stays of them (no input, output or error) to `job_history`, kept JOB_HISTORY_RETENTION_MS
 * after they finished. A job is in one table or the other (moved in one statement), so the list is the union of
 * both, newest first, a page at a time from a cursor (created_at, id).
 */
@Injectable()
export class JobHistoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(query: ListEndpointJobsQuery, now: Date): Promise<JobListRow[]> {
    const params: unknown[] = [query.endpointId, now];
    // Each clause names the columns of alias `t`, written for either side.
    const where: string[] = [];
    const add = (clause: string, ...values: unknown[]) => {
      const first = params.length + 1;
      params.push(...values);
      where.push(clause.replace(/\$(\d)/g, (_, n: string) => `$${first + Number(n) - 1}`));
    };
    if (query.statuses?.length) add('t.status = ANY($1)', query.statuses);
    if (query.from) add('t.created_at >= $1', new Date(query.from));
    if (query.to) add('t.created_at < $1', new Date(query.to));
    if (query.after) add('(t.created_at, t.id) < ($1, $2)', new Date(query.after.createdAt), query.after.id);
    params.push(query.limit + 1);
    const filter = (alias: string) =>
      where.map((clause) => ` AND ${clause.replace(/\bt\./g, `${alias}.`)}`).join('');
    // Each side reads its (endpoint_id, created_at, id) index backwards and stops at the limit.
    return this.dataSource.query<JobListRow[]>(
      `(SELECT ${LIVE_COLUMNS} FROM ${LIVE_FROM} WHERE j.endpoint_id = $1${filter('j')}
          ORDER BY j.created_at DESC, j.id DESC LIMIT $${params.length})
       UNION ALL
       (SELECT ${HISTORY_COLUMNS} FROM queue_broker.job_history h WHERE h.endpoint_id = $1${filter('h')}
          ORDER BY h.created_at DESC, h.id DESC LIMIT $${params.length})
       ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
  }

  /** The job of the endpoint, live or in the history; undefined when neither holds it. */
  async detail(endpointId: string, jobId: string, now: Date): Promise<JobDetailRow | undefined> {
    const live = await this.dataSource.query<JobDetailRow[]>(
      `SELECT ${LIVE_COLUMNS}, j.endpoint_id, j.expires_at > $2 AS kept,
         CASE WHEN j.expires_at > $2 THEN j.input END AS input,
         CASE WHEN j.expires_at > $2 THEN j.output END AS output, j.has_output AND j.expires_at > $2 AS has_output,
         CASE WHEN j.expires_at > $2 THEN j.error END AS error, j.stream_seq AS stream_chunks,
         COALESCE((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'workerId', a.worker_id,
             'startedAt', a.started_at, 'endedAt', a.ended_at, 'outcome', a.outcome) ORDER BY a.attempt, a.started_at)
           FROM queue_broker.job_attempts a WHERE a.job_id = j.id), '[]'::jsonb) AS leases
       FROM ${LIVE_FROM} WHERE j.endpoint_id = $1 AND j.id = $3`,
      [endpointId, now, jobId],
    );
    if (live[0]) return live[0];
    const archived = await this.dataSource.query<JobDetailRow[]>(
      `SELECT ${HISTORY_COLUMNS}, h.endpoint_id, false AS kept, NULL AS input, NULL AS output,
         false AS has_output, NULL AS error, h.stream_chunks, h.leases
       FROM queue_broker.job_history h WHERE h.endpoint_id = $1 AND h.id = $2`,
      [endpointId, jobId],
    );
    return archived[0];
  }

  /**
   * Finished jobs whose result expired leave `jobs` (with their stream chunks and attempts) for `job_history`, in
   * one statement, without their payloads; returns how many. Part of `job.cmd.sweep` (a rebuild does the same).
   */
  async archiveExpired(now: Date, manager: EntityManager, limit = 1000): Promise<number> {
    const rows = await manager.query<{ id: string }[]>(
      `WITH gone AS (
         DELETE FROM queue_broker.jobs WHERE id IN (
           SELECT id FROM queue_broker.jobs
           WHERE expires_at <= $1 AND status IN ('COMPLETED','FAILED','CANCELLED','TIMED_OUT')
           ORDER BY id LIMIT $2 FOR UPDATE)
         RETURNING *),
       leases AS (
         SELECT a.job_id, jsonb_agg(jsonb_build_object('attempt', a.attempt, 'workerId', a.worker_id,
             'startedAt', a.started_at, 'endedAt', a.ended_at, 'outcome', a.outcome) ORDER BY a.attempt, a.started_at)
           AS leases
         FROM queue_broker.job_attempts a WHERE a.job_id IN (SELECT id FROM gone) GROUP BY a.job_id)
       INSERT INTO queue_broker.job_history (id, endpoint_id, owner_id, sync, status, created_at, started_at,
         finished_at, result_expired_at, delay_time_ms, execution_time_ms, last_worker_id, attempts, retries,
         stream_chunks, input_bytes, output_bytes, error_bytes, leases)
       SELECT g.id, g.endpoint_id, g.owner_id, g.sync, g.status, g.created_at, g.started_at,
         COALESCE(g.finished_at, g.expires_at), g.expires_at, g.delay_time_ms, g.execution_time_ms,
         g.last_worker_id, g.attempts, g.retries, g.stream_seq, octet_length(g.input::text),
         CASE WHEN g.has_output THEN octet_length(g.output::text) END, octet_length(g.error),
         COALESCE(l.leases, '[]'::jsonb)
       FROM gone g LEFT JOIN leases l ON l.job_id = g.id
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [now, limit],
    );
    const ids = rows.map((r) => r.id);
    if (ids.length) {
      await manager.query(`DELETE FROM queue_broker.job_stream_chunks WHERE job_id = ANY($1)`, [ids]);
      await manager.query(`DELETE FROM queue_broker.job_attempts WHERE job_id = ANY($1)`, [ids]);
    }
    return ids.length;
  }

  /** History rows of jobs finished before `before` are deleted (JOB_HISTORY_RETENTION_MS); returns how many. */
  async purge(before: Date, manager: EntityManager, limit = 5000): Promise<number> {
    const rows = await manager.query<[unknown[], number]>(
      `DELETE FROM queue_broker.job_history WHERE id IN (
         SELECT id FROM queue_broker.job_history WHERE finished_at < $1 ORDER BY finished_at, id LIMIT $2)`,
      [before, limit],
    );
    return rows[1];
  }

  /** Whether any history row is due for purging (the sweeper's cheap read). */
  async purgeDue(before: Date): Promise<boolean> {
    const rows = await this.dataSource.query<{ due: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM queue_broker.job_history WHERE finished_at < $1) AS due`,
      [before],
    );
    return rows[0].due;
  }
}
