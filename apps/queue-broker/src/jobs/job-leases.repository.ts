import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { deriveId } from '@app/contracts';
import { preparedQuery, queryBehind, versionCheck, writeBehind, type StatementPart } from '@app/database';
import type { JobEntity } from './job.entity.js';
import { LeasedCopies } from './leased-copies.js';

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
const LEASE_QUEUED = (touch: StatementPart, returning: string) => `
  WITH touched AS (${touch.sql(5)}), picked AS (
    SELECT id FROM queue_broker.jobs
    WHERE endpoint_id = $1 AND status = 'IN_QUEUE' AND expires_at > $3 AND (SELECT alive FROM touched)
    ORDER BY queued_at, id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  ${leasePicked(returning)}`;

/**
 * A replayed take leases the jobs its live application leased (docs/adr/0028-recorded-take-decisions.md), those
 * of them that are still queued and unexpired for the endpoint: the rebuild never leases a job the live side did
 * not, and a job it cannot lease shows as a difference of the take's outcome. The worker's touch as above.
 */
const LEASE_RECORDED = (touch: StatementPart, returning: string) => `
  WITH touched AS (${touch.sql(5)}), picked AS (
    SELECT id FROM queue_broker.jobs
    WHERE id = ANY($2::text[]) AND endpoint_id = $1 AND status = 'IN_QUEUE' AND expires_at > $3
      AND (SELECT alive FROM touched)
    FOR UPDATE
  )
  ${leasePicked(returning)}`;

/**
 * A submit's take guessed (docs/adr/0013, "A take that rides on the submit, guessed"): it leases the job just
 * inserted ($2), which is what LEASE_QUEUED leases when no other job of the endpoint is queued and the worker is
 * alive, and fails the transaction (a version check) when either is not so, rather than lease anything else. What
 * it checks for the others it reads without SKIP LOCKED: a queued job another transaction holds counts, so the
 * guess is wrong (and the submit reads) whenever LEASE_QUEUED could have chosen otherwise.
 */
const LEASE_SUBMITTED = (touch: StatementPart, returning: string) => `
  WITH touched AS (${touch.sql(5)}), others AS (
    SELECT count(*)::int AS n FROM (
      SELECT 1 FROM queue_broker.jobs
      WHERE endpoint_id = $1 AND status = 'IN_QUEUE' AND expires_at > $3 AND id <> $2
      LIMIT 1
    ) AS queued
  ), picked AS (
    SELECT id FROM queue_broker.jobs
    WHERE id = $2 AND endpoint_id = $1 AND status = 'IN_QUEUE' AND expires_at > $3
      AND (SELECT alive FROM touched) AND (SELECT n FROM others) = 0
    FOR UPDATE
  ), leased AS (${leasePicked(returning)})
  SELECT leased.*, found.checked FROM (
    SELECT ${versionCheck('c.n', 'CAST($2 AS text)')} AS checked FROM (SELECT count(*)::int AS n FROM leased) AS c
  ) AS found LEFT JOIN leased ON true`;

/**
 * The lease itself, of the jobs `picked` names ($3: the take's time, $4: the worker), returning every column and the
 * row's version (LeasedCopies.returning).
 */
function leasePicked(returning: string): string {
  return `UPDATE queue_broker.jobs j SET
    attempts = j.attempts + 1,
    status = 'IN_PROGRESS',
    lease_worker_id = $4,
    last_worker_id = $4,
    leased_at = $3,
    started_at = $3,
    delay_time_ms = GREATEST(0, (EXTRACT(EPOCH FROM $3::timestamptz) - EXTRACT(EPOCH FROM j.queued_at)) * 1000)::int,
    stop_pending = false
  FROM picked WHERE j.id = picked.id
  RETURNING ${returning}`;
}

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

  constructor(private readonly copies: LeasedCopies) {}

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
      this.text(name, () => LEASE_QUEUED(touch, this.copies.returning())),
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
      this.text(name, () => LEASE_RECORDED(touch, this.copies.returning())),
      [endpointId, jobIds, now, workerId, ...touch.values],
    );
    const position = new Map(jobIds.map((id, i) => [id, i]));
    rows.sort((a, b) => position.get(a.id)! - position.get(b.id)!);
    return this.leasedRows(rows, workerId, now, manager);
  }

  /**
   * Leases the job a submit has just inserted to the worker whose take rides on it, without waiting: what a
   * `leaseQueued` of the job's endpoint would lease when nothing else is queued there and the worker is alive
   * (LEASE_SUBMITTED checks both, failing the transaction if either is not so). Its copy (LeasedCopies) is kept
   * when the statement's rows arrive, before the transaction's COMMIT is answered.
   */
  async leaseSubmitted(
    job: JobEntity,
    workerId: string,
    now: Date,
    touch: StatementPart,
    manager: EntityManager,
  ): Promise<LeasedJob[]> {
    const name = `jobs.lease-submitted+${touch.name}`;
    const { rows } = await queryBehind<LeasedRow>(
      manager,
      name,
      this.text(name, () => LEASE_SUBMITTED(touch, this.copies.returning())),
      [job.endpointId, job.id, now, workerId, ...touch.values],
    );
    rows.then(
      (leased) => leased.forEach((row) => this.copies.remember(row as unknown as Record<string, unknown>)),
      // Its failure fails the transaction, which throws it: nothing is kept.
      () => undefined,
    );
    const leased = { id: job.id, attempts: job.attempts + 1, retries: job.retries };
    return this.openAttempts([leased], workerId, now, manager, [
      {
        id: job.id,
        input: job.input,
        webhook: job.webhook,
        s3Config: job.s3Config,
        executionTimeoutMs: job.executionTimeoutMs,
        lowPriority: job.lowPriority,
        ttlMs: job.ttlMs,
      },
    ]);
  }

  private text(name: string, build: () => string): string {
    let text = this.texts.get(name);
    if (text === undefined) this.texts.set(name, (text = build()));
    return text;
  }

  /** The rows just leased: their copies kept, their attempts opened, and what the take hands out of them, in order. */
  private leasedRows(
    rows: LeasedRow[],
    workerId: string,
    now: Date,
    manager: EntityManager,
  ): Promise<LeasedJob[]> {
    for (const row of rows) this.copies.remember(row as unknown as Record<string, unknown>);
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
