import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  jobIdFor,
  type SubmitManyCommand,
  type SubmitManyResult,
  unstorableJson,
  unstorableJsonError,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobEventFolder } from '../job-event-folder.js';
import { JobLifecycle } from '../job-lifecycle.js';
import { JobsRepository } from '../jobs.repository.js';
import { newQueuedJob } from '../new-job.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';

/**
 * The submits a gateway folded into one command (docs/adr/0013, "Submits folded"): each job is recorded IN_QUEUE
 * as a submit's is, in the order given, in the command's one transaction, and announced in one
 * `job.evt.queued-many` (`foldEvents`; "Events that carry many jobs") or, for a command recorded without it, in a
 * `job.evt.queued` each. Every rule is checked for every job before anything is written, so the command is applied
 * whole or refused whole (the gateway then sends each job as a submit of its own, and each gets its own answer). The
 * jobs are inserted in one statement ("Writes that carry many jobs").
 */
@Injectable()
export class SubmitManyHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.job.submitMany)
  async handle(ctx: CommandContext<SubmitManyCommand>): Promise<SubmitManyResult> {
    const { envelope, payload, manager, now } = ctx;
    const ids = new Set(payload.jobs.map((item) => item.id));
    if (ids.size !== payload.jobs.length) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the jobs of a submit-many must have distinct ids');
    }
    // Every rule holds for every job before any is written: what jsonb would refuse fails no insert.
    for (const [n, item] of payload.jobs.entries()) {
      const unstorable = unstorableJson(item.input);
      if (unstorable) {
        throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
          unstorableJsonError(`jobs.${n}.input`, unstorable),
        ]);
      }
    }
    // A gateway's command since events carry many jobs; one recorded before keeps one event per job.
    const events = payload.foldEvents ? new JobEventFolder(ctx) : null;
    const tx = events?.tx ?? ctx;
    const accepted: SubmitManyResult['jobs'] = [];
    const jobs = payload.jobs.map((item) =>
      newQueuedJob(
        {
          ...item,
          id: jobIdFor(item.id, item.sync),
          endpointId: payload.endpointId,
          ownerId: envelope.actor.userId,
        },
        now,
        this.config.RUN_RETENTION_MS,
      ),
    );
    await this.jobs.insertMany(jobs, manager);
    for (const job of jobs) {
      await this.lifecycle.queued(tx, job);
      accepted.push({ id: job.id, status: 'IN_QUEUE' });
    }
    await events?.flush();
    return { jobs: accepted };
  }
}
