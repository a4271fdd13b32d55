import type { UpdateRow } from '@app/database';
import type { EntityManager } from 'typeorm';
import type { AttemptOutcome } from './job-attempt.entity.js';
import type { JobEntity } from './job.entity.js';
import type { JobsRepository } from './jobs.repository.js';

/**
 * The job writes of one command that carries many jobs (done-many), held and sent at `flush()` as one statement
 * rather than one per job (docs/adr/0013, "Set-based writes"). Each `save` takes the job's columns as
 * they are then, so the statement writes what the last `save` of each job would have written. Only for a command
 * that reads no job after writing one: a held write is not yet in the table.
 */
export class JobWriteBatch {
  private readonly rows = new Map<string, UpdateRow>();
  private readonly closes = new Map<string, AttemptOutcome>();

  constructor(
    private readonly jobs: JobsRepository,
    private readonly manager: EntityManager,
    private readonly now: Date,
  ) {}

  /** Holds the job's write; `closing`: its open attempt ends with that outcome (the first given, as in order). */
  save(job: JobEntity, closing?: AttemptOutcome): void {
    this.rows.set(job.id, this.jobs.updateRow(job));
    if (closing && !this.closes.has(job.id)) this.closes.set(job.id, closing);
  }

  /** Sends what is held, in one statement. */
  async flush(): Promise<void> {
    if (!this.rows.size) return;
    const rows = [...this.rows.values()];
    const closes = new Map(this.closes);
    this.rows.clear();
    this.closes.clear();
    await this.jobs.saveMany(rows, closes, this.now, this.manager);
  }
}
