import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  joinedEntity,
  rowVersionColumns,
  rowVersionOf,
  type JoinedEntity,
  type RowVersion,
} from '@app/database';
import { JobEntity } from './job.entity.js';

/** A job's row as a lease left it, and that row's version. */
export interface LeasedCopy {
  job: JobEntity;
  version: RowVersion;
}

/**
 * How many copies a process keeps at most: a job whose result comes folded with others (done-many), or to another
 * replica, leaves its copy unused, and the oldest go first.
 */
const MAX_COPIES = 4096;

/**
 * The rows of the jobs this process leased, as the leasing statement returned them, for the job-done of each
 * (docs/adr/0013, "A done on the lease's copy"): the done reads its job from here and asserts in its transaction
 * that the row is still this version (EntityStatements.lockVersion) instead of waiting for a read, so its
 * transaction is one round trip. A copy is handed out once, and any other locked read of the job drops it; one that
 * went stale meanwhile (a cancel, a stream chunk, another replica's command) fails its transaction, which is applied
 * again with a read. Without the job's input, which a lease returns for the worker and a job-done never writes;
 * jobs with a webhook, whose body carries the input, are not kept.
 */
@Injectable()
export class LeasedCopies {
  private readonly copies = new Map<string, LeasedCopy>();
  private readonly columns: JoinedEntity<JobEntity>;

  constructor(dataSource: DataSource) {
    this.columns = joinedEntity(dataSource, JobEntity, 'j', '');
  }

  /** What a leasing statement returns for `remember`: every column of the job (alias `j`) and its version. */
  returning(): string {
    return `${this.columns.select}, ${rowVersionColumns('j')}`;
  }

  /** Keeps the copy of a job just leased (a row the statement of `returning` answered). */
  remember(row: Record<string, unknown>): void {
    const job = this.columns.from(row);
    if (!job || job.webhook !== null) return;
    job.input = undefined;
    this.copies.delete(job.id);
    this.copies.set(job.id, { job, version: rowVersionOf(row) });
    if (this.copies.size > MAX_COPIES) this.copies.delete(this.copies.keys().next().value!);
  }

  /** The job's copy, handed out once. */
  take(jobId: string): LeasedCopy | undefined {
    const copy = this.copies.get(jobId);
    if (copy) this.copies.delete(jobId);
    return copy;
  }

  forget(jobIds: Iterable<string>): void {
    for (const id of jobIds) this.copies.delete(id);
  }
}
