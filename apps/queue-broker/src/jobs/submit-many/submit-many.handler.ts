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
import { newQueuedJob } from '../new-job.js';
import { SubmitJobs } from '../submit-jobs.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';

/**
 * The submits a gateway batched into one command (docs/adr/0013, "Batched submits"): what a submit does
 * (submit-jobs.ts), for each job in the order given, in the command's one transaction. Every rule is checked for
 * every job before anything is written, so the command is applied whole or refused whole (the gateway then sends
 * each job as a submit of its own, and each gets its own answer).
 */
@Injectable()
export class SubmitManyHandler {
  constructor(
    private readonly submits: SubmitJobs,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.job.submitMany)
  async handle(ctx: CommandContext<SubmitManyCommand>): Promise<SubmitManyResult> {
    const { envelope, payload, now } = ctx;
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
    await this.submits.submit(ctx, jobs);
    return { jobs: jobs.map((job) => ({ id: job.id, status: 'IN_QUEUE' })) };
  }
}
