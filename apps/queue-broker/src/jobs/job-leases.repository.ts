import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { deriveId } from '@app/contracts';
import { preparedQuery, writeBehind, type StatementPart } from '@app/database';

/** What a take hands the worker, read back from the leasing statement. */
export interface LeasedJob {
  id: string;
  input: unknown;
  webhook: string | null;
  s3Config: Record<string, unknown> | null;
  executionTimeoutMs: number;
  lowPriority: boolean;
  ttlMs: number | null;
}

interface LeasedRow {
  id: string;
  input: unknown;
  webhook: string | null;
  s3_config: Record<string, unknown> | null;
  execution_timeout_ms: number;
  low_priority: boolean;
  ttl_ms: string | null;
  attempts: number;
  retries: number;
}

/**
 * Claims the oldest queued jobs of the endpoint and leases them, in one statement: the rows are picked with
 * FOR UPDATE SKIP LOCKED (a job another transaction holds, a cancel in flight say, is never handed out, and takes of
 * other workers never wait on each other), and each leased job gets the same columns JobLifecycle gives a lease
 * (attempt counted, IN_PROGRESS, leased to the worker, started and delayed as of the command's time). The worker's
 * touch (`touched`, its parameters from $5) is part of it: nothing is picked unless it answers `alive`.
 */
const LEASE_QUEUED = (touch: StatementPart) => `
  WITH touched AS (${touch.sql(5)}), picked AS (
    SELECT id FROM queue_broker.jobs
    WHERE endpoint_id = $1 AND status = 'IN_QUEUE' AND expires_at > $3 AND (SELECT alive FROM touched)
    ORDER BY queued_at, id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  ${LEASE_PICKED}`;

/**
 * A replayed take leases the jobs its live application leased (docs/adr/0028-recorded-take-decisions.md), those
 * of them that are still queued and unexpired for the endpoint: the rebuild never leases a job the live side did
 * not, and a job it cannot lease shows as a difference of the take's outcome. The worker's touch as above.
 */
const LEASE_RECORDED = (touch: StatementPart) => `
  WITH touched AS (${touch.sql(5)}), picked AS (
    SELECT id FROM queue_broker.jobs
    WHERE id = ANY($2::text[]) AND endpoint_id = $1 AND status = 'IN_QUEUE' AND expires_at > $3
      AND (SELECT alive FROM touched)
    FOR UPDATE
  )
  ${LEASE_PICKED}`;

/** The lease itself, of the jobs `picked` names ($3: the take's time, $4: the worker), returning what it hands out. */
const LEASE_PICKED = `UPDATE queue_broker.jobs j SET
    attempts = j.attempts + 1,
    status = 'IN_PROGRESS',
    lease_worker_id = $4,
    last_worker_id = $4,
    leased_at = $3,
    started_at = $3,
    delay_time_ms = GREATEST(0, (EXTRACT(EPOCH FROM $3::timestamptz) - EXTRACT(EPOCH FROM j.queued_at)) * 1000)::int,
    stop_pending = false
  FROM picked WHERE j.id = picked.id
  RETURNING j.id, j.input, j.webhook, j.s3_config, j.execution_timeout_ms, j.low_priority, j.ttl_ms, j.attempts,
    j.retries, j.queued_at`;

/** One attempt row per leased job, its id derived from the job, its retry and its attempt (stable on replay). */
const OPEN_ATTEMPTS = `
  INSERT INTO queue_broker.job_attempts (id, job_id, attempt, worker_id, started_at, ended_at, outcome)
  SELECT a.id, a.job_id, a.attempt, $4, $5, NULL, NULL
  FROM unnest($1::text[], $2::text[], $3::int[]) AS a(id, job_id, attempt)`;

/**
 * The take's statements, without the ORM (the hottest path of the broker: one per job-take of every worker). Each
 * take is two statements: the worker's touch with the lease, then the attempts, sent without waiting (writeBehind).
 */
@Injectable()
export class JobLeasesRepository {
  /** The texts by the touch's name: one text per prepared statement name. */
  private readonly texts = new Map<string, string>();

  async leaseQueued(
    endpointId: string,
    limit: number,
    workerId: string,
    now: Date,
    touch: StatementPart,
    manager: EntityManager,
  ): Promise<LeasedJob[]> {
    const name = `jobs.lease-queued+${touch.name}`;
    const rows = await preparedQuery<LeasedRow & { queued_at: Date }>(
      manager,
      name,
      this.text(name, () => LEASE_QUEUED(touch)),
      [endpointId, limit, now, workerId, ...touch.values],
    );
    // RETURNING follows no order: hand them out oldest first, as they were picked.
    rows.sort(
      (a, b) => a.queued_at.getTime() - b.queued_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    return this.leasedRows(rows, workerId, now, manager);
  }

  /**
   * Leases the jobs a take leased live, in the order given (a replay: LEASE_RECORDED). Run when it names none too:
   * the touch is the take's effect on the worker.
   */
  async leaseRecorded(
    endpointId: string,
    jobIds: string[],
    workerId: string,
    now: Date,
    touch: StatementPart,
    manager: EntityManager,
  ): Promise<LeasedJob[]> {
    const name = `jobs.lease-recorded+${touch.name}`;
    const rows = await preparedQuery<LeasedRow>(
      manager,
      name,
      this.text(name, () => LEASE_RECORDED(touch)),
      [endpointId, jobIds, now, workerId, ...touch.values],
    );
    const position = new Map(jobIds.map((id, i) => [id, i]));
    rows.sort((a, b) => position.get(a.id)! - position.get(b.id)!);
    return this.leasedRows(rows, workerId, now, manager);
  }

  private text(name: string, build: () => string): string {
    let text = this.texts.get(name);
    if (text === undefined) this.texts.set(name, (text = build()));
    return text;
  }

  /** The rows just leased: their attempts opened, and what the take hands out of them, in order. */
  private leasedRows(
    rows: LeasedRow[],
    workerId: string,
    now: Date,
    manager: EntityManager,
  ): Promise<LeasedJob[]> {
    return this.openAttempts(
      rows,
      workerId,
      now,
      manager,
      rows.map((r) => ({
        id: r.id,
        input: r.input,
        webhook: r.webhook,
        s3Config: r.s3_config,
        executionTimeoutMs: r.execution_timeout_ms,
        lowPriority: r.low_priority,
        ttlMs: r.ttl_ms === null ? null : Number(r.ttl_ms),
      })),
    );
  }

  /** The attempt rows of the jobs just leased (`rows`: their attempt counts), and what the take hands out of them. */
  private async openAttempts(
    rows: readonly Pick<LeasedRow, 'id' | 'attempts' | 'retries'>[],
    workerId: string,
    now: Date,
    manager: EntityManager,
    handedOut: LeasedJob[],
  ): Promise<LeasedJob[]> {
    if (!rows.length) return [];
    await writeBehind(manager, 'jobs.open-attempts', OPEN_ATTEMPTS, [
      rows.map((r) => deriveId(`${r.id}/${r.retries}/${r.attempts}`, 'attempt', 24)),
      rows.map((r) => r.id),
      rows.map((r) => r.attempts),
      workerId,
      now,
    ]);
    return handedOut;
  }
}
