import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { deriveId, type JobStatus } from '@app/contracts';
import { EntityStatements, preparedQuery, type StatementPart, type UpdateRow } from '@app/database';
import { IgnoredResultEntity } from './ignored-result.entity.js';
import type { AttemptOutcome } from './job-attempt.entity.js';
import { JobEntity } from './job.entity.js';

export interface QueueCounts {
  inQueue: number;
  inProgress: number;
  inQueueNonLowPriority: number;
  oldestQueuedAt: Date | null;
}

/** Ends the job's open attempt (job id `$1`): its end time is `$first`, its outcome `$first + 1`. */
function closeOpenAttempt(first: number): string {
  return (
    `UPDATE queue_broker.job_attempts SET ended_at = $${first}, outcome = $${first + 1} ` +
    `WHERE job_id = $1 AND ended_at IS NULL`
  );
}

/**
 * Every statement on the jobs table and the rows that hang off a job (attempts, ignored results; the stream chunks'
 * are in job-chunks.repository.ts; the history's list and the move of expired jobs to it in
 * job-history/job-history.repository.ts), so that only these files know their SQL. Over 300 lines for that reason; the
 * ignored results' statements are the part to move out next if it grows.
 */
@Injectable()
export class JobsRepository {
  /** Read-locked and written back by nearly every command: prepared once (entity-statements.ts). */
  private readonly statements: EntityStatements<JobEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.statements = new EntityStatements(dataSource, JobEntity, [
      'input',
      'endpointId',
      'ownerId',
      'sync',
      'createdAt',
    ]);
  }

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<JobEntity | null> {
    return manager.findOneBy(JobEntity, { id });
  }

  /** Reads the job and locks its row for the rest of the transaction; `alongside`: a write in the same statement. */
  lockById(id: string, manager: EntityManager, alongside?: StatementPart): Promise<JobEntity | null> {
    return this.statements.lockById(id, manager, alongside);
  }

  /**
   * The jobs of `ids` that exist, read and locked (in id order) for the rest of the transaction, by id; `alongside`:
   * a write in the same statement.
   */
  async lockByIds(
    ids: readonly string[],
    manager: EntityManager,
    alongside?: StatementPart,
  ): Promise<Map<string, JobEntity>> {
    return (await this.statements.lockByIds(ids, manager, alongside)) as Map<string, JobEntity>;
  }

  /** Inserts the jobs in one statement (every submit's: a lone one is a batch of one). */
  insertMany(jobs: readonly JobEntity[], manager: EntityManager): Promise<unknown> {
    return this.statements.insertMany(jobs, manager);
  }

  /** What `save` would write for the job now, as one row of `saveMany`. */
  updateRow(job: JobEntity): UpdateRow {
    return this.statements.updateRow(job);
  }

  /**
   * Rows taken by `updateRow` (one per job) written in one statement, which also ends the open attempt of each job
   * in `closes` with its outcome at `now`: what a `save` or `saveClosingAttempt` per job would do.
   */
  saveMany(
    rows: readonly UpdateRow[],
    closes: ReadonlyMap<string, AttemptOutcome>,
    now: Date,
    manager: EntityManager,
  ): Promise<unknown> {
    if (!closes.size) return this.statements.updateMany(rows, manager);
    return this.statements.updateMany(rows, manager, {
      name: 'close-attempts',
      // By the open attempts' index, for the jobs named (as the rows, see EntityStatements.updateMany).
      sql: (first) =>
        `closed AS (UPDATE queue_broker.job_attempts AS a SET ended_at = $${first}, outcome = c.outcome ` +
        `FROM unnest($${first + 1}::text[], $${first + 2}::text[]) AS c(job_id, outcome) ` +
        `WHERE a.job_id = ANY($${first + 1}::text[]) AND a.ended_at IS NULL AND a.job_id = c.job_id)`,
      values: [now, [...closes.keys()], [...closes.values()]],
    });
  }

  /** Writes the job's mutable columns (never the input, which can be megabytes and never changes). */
  save(job: JobEntity, manager: EntityManager): Promise<unknown> {
    return this.statements.update(job, manager);
  }

  /** `save` and `closeAttempt` as one statement: a finished job's write and its lease's end (job-done's path). */
  saveClosingAttempt(
    job: JobEntity,
    outcome: AttemptOutcome,
    now: Date,
    manager: EntityManager,
  ): Promise<unknown> {
    return this.statements.updateWith(job, manager, {
      name: 'close-attempt',
      sql: (first) => `closed AS (${closeOpenAttempt(first)})`,
      values: [now, outcome],
    });
  }

  /** Queued jobs of the endpoint (of `only` when given: a rebuild's recorded purge), locked, in id order (purge). */
  lockAllQueued(endpointId: string, manager: EntityManager, only?: readonly string[]): Promise<JobEntity[]> {
    const query = manager
      .getRepository(JobEntity)
      .createQueryBuilder('j')
      .where('j.endpoint_id = :endpointId', { endpointId })
      .andWhere(`j.status = 'IN_QUEUE'`);
    if (only) query.andWhere('j.id = ANY(:only)', { only: [...only] });
    return query.orderBy('j.id').setLock('pessimistic_write').getMany();
  }

  /** Jobs leased to the worker, locked. */
  lockLeasedTo(workerIds: string[], manager: EntityManager): Promise<JobEntity[]> {
    if (!workerIds.length) return Promise.resolve([]);
    return manager
      .getRepository(JobEntity)
      .createQueryBuilder('j')
      .where('j.lease_worker_id IN (:...workerIds)', { workerIds })
      .orderBy('j.id')
      .setLock('pessimistic_write')
      .getMany();
  }

  /** Running jobs whose execution timeout has passed at `now`, locked. */
  lockTimedOut(now: Date, manager: EntityManager, limit = 500): Promise<JobEntity[]> {
    return manager
      .getRepository(JobEntity)
      .createQueryBuilder('j')
      .where(`j.status = 'IN_PROGRESS'`)
      .andWhere(`j.started_at + j.execution_timeout_ms * interval '1 millisecond' <= :now`, { now })
      .orderBy('j.id')
      .limit(limit)
      .setLock('pessimistic_write')
      .getMany();
  }

  /** Queued or running jobs whose lifetime (ttl) has passed, locked. */
  lockOutlived(now: Date, manager: EntityManager, limit = 500): Promise<JobEntity[]> {
    return manager
      .getRepository(JobEntity)
      .createQueryBuilder('j')
      .where(`j.status IN ('IN_QUEUE', 'IN_PROGRESS')`)
      .andWhere('j.expires_at <= :now', { now })
      .orderBy('j.id')
      .limit(limit)
      .setLock('pessimistic_write')
      .getMany();
  }

  /** Whether the sweeper has anything to do at `now` (a cheap read before issuing the sweep command). */
  async sweepDue(now: Date, lostBefore: Date): Promise<boolean> {
    const rows = await this.dataSource.query<{ expired: boolean; timed_out: boolean; lost: boolean }[]>(
      `SELECT
         EXISTS (SELECT 1 FROM queue_broker.jobs WHERE expires_at <= $1) AS expired,
         EXISTS (SELECT 1 FROM queue_broker.jobs WHERE status = 'IN_PROGRESS'
                 AND started_at + execution_timeout_ms * interval '1 millisecond' <= $1) AS timed_out,
         EXISTS (SELECT 1 FROM queue_broker.workers w WHERE w.lost_at IS NULL
                 AND COALESCE(w.last_seen_at, w.registered_at) < $2
                 AND (w.last_seen_at IS NOT NULL OR EXISTS
                   (SELECT 1 FROM queue_broker.jobs j WHERE j.lease_worker_id = w.id))) AS lost`,
      [now, lostBefore],
    );
    const row = rows[0];
    return row.expired || row.timed_out || row.lost;
  }

  // ---- leases -----------------------------------------------------------------------------------------------------

  async closeAttempt(
    jobId: string,
    outcome: AttemptOutcome,
    now: Date,
    manager: EntityManager,
  ): Promise<void> {
    await preparedQuery(manager, 'jobs.close-attempt', closeOpenAttempt(2), [jobId, now, outcome]);
  }

  // ---- ignored results, counters ------------------------------------------------------------------------------------

  /** `postId`: the id of the post's command (of its item, in a done-many), which the record's id derives from. */
  recordIgnored(
    entry: Omit<IgnoredResultEntity, 'id'>,
    postId: string,
    manager: EntityManager,
  ): Promise<unknown> {
    return manager.insert(IgnoredResultEntity, { id: deriveId(postId, 'ignored', 24), ...entry });
  }

  /**
   * endpoint_job_counters is written by no release since /health reads the metrics rollups (ADR 22); this empties
   * it of what earlier releases wrote, and a later release drops it (a rolling upgrade still runs those).
   */
  deleteCountersBefore(before: Date, manager: EntityManager): Promise<unknown> {
    return manager.query(`DELETE FROM queue_broker.endpoint_job_counters WHERE bucket_start < $1`, [before]);
  }

  /** Each endpoint's queue (those with none are absent), in one statement over the active jobs' index. */
  async queueCounts(endpointIds: string[], now: Date): Promise<Map<string, QueueCounts>> {
    const rows = await this.dataSource.query<
      {
        endpoint_id: string;
        in_queue: number;
        in_progress: number;
        in_queue_normal: number;
        oldest: Date | null;
      }[]
    >(
      `SELECT endpoint_id,
         COUNT(*) FILTER (WHERE status = 'IN_QUEUE')::int AS in_queue,
         COUNT(*) FILTER (WHERE status = 'IN_PROGRESS')::int AS in_progress,
         COUNT(*) FILTER (WHERE status = 'IN_QUEUE' AND NOT low_priority)::int AS in_queue_normal,
         MIN(queued_at) FILTER (WHERE status = 'IN_QUEUE' AND NOT low_priority) AS oldest
       FROM queue_broker.jobs
       WHERE endpoint_id = ANY($1) AND status IN ('IN_QUEUE', 'IN_PROGRESS') AND expires_at > $2
       GROUP BY endpoint_id`,
      [endpointIds, now],
    );
    return new Map(
      rows.map((row) => [
        row.endpoint_id,
        {
          inQueue: row.in_queue,
          inProgress: row.in_progress,
          inQueueNonLowPriority: row.in_queue_normal,
          oldestQueuedAt: row.oldest,
        },
      ]),
    );
  }

  /**
   * Jobs the worker must be told to abandon, marked as told (job-stop hands each out once). With `decided` (a
   * rebuild: the ids the live collect handed out, ADR 28) only those, of the pending ones, are collected.
   */
  async collectStops(
    workerId: string,
    now: Date,
    manager: EntityManager,
    decided?: readonly string[],
  ): Promise<string[]> {
    const rows = await manager.query<[{ id: string }[], number]>(
      `UPDATE queue_broker.jobs SET stop_pending = false, stop_delivered_at = $2
       WHERE last_worker_id = $1 AND stop_pending AND ($3::text[] IS NULL OR id = ANY($3)) RETURNING id`,
      [workerId, now, decided ?? null],
    );
    return rows[0].map((r) => r.id).sort();
  }

  /** Jobs the worker still runs (it lists them in its ping) although they ended here: tell it again. */
  async rearmStops(
    workerId: string,
    jobIds: string[],
    before: Date,
    manager: EntityManager,
  ): Promise<string[]> {
    if (!jobIds.length) return [];
    const rows = await manager.query<[{ id: string }[], number]>(
      `UPDATE queue_broker.jobs SET stop_pending = true
       WHERE last_worker_id = $1 AND id = ANY($2) AND NOT stop_pending
         AND status IN ('CANCELLED','TIMED_OUT') AND (stop_delivered_at IS NULL OR stop_delivered_at < $3)
       RETURNING id`,
      [workerId, jobIds, before],
    );
    return rows[0].map((r) => r.id);
  }

  statusOf(ids: string[]): Promise<{ id: string; status: JobStatus }[]> {
    return this.dataSource.query(`SELECT id, status FROM queue_broker.jobs WHERE id = ANY($1)`, [ids]);
  }
}
