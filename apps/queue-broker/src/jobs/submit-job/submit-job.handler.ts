import { Injectable } from '@nestjs/common';
import {
  BlobMissingError,
  DomainError,
  ErrorCode,
  Subjects,
  jobIdFor,
  type SubmitJobCommand,
  type SubmitResult,
  unstorableJson,
  unstorableJsonError,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PayloadStore } from '../../payloads/payload-store.js';
import { JobLifecycle } from '../job-lifecycle.js';
import { JobTakes, takenJobIds } from '../job-takes.js';
import { JobsRepository } from '../jobs.repository.js';
import { newQueuedJob } from '../new-job.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';

/**
 * /run and /runsync: the job row is committed before the edge answers 200 (the command waits for it). A submit may
 * carry a take for a worker poll that was waiting at the edge (`take`): it is applied here, after the insert, as
 * the worker's own take would have been (the oldest queued jobs first), and saves that take its own command, its
 * transaction and the queued signal's round (docs/adr/0013, "A take that rides on the submit"). Alone in its
 * transaction, it guesses that the take leases the job it submits, and its transaction is one round trip
 * (docs/adr/0013, "A take that rides on the submit, guessed").
 */
@Injectable()
export class SubmitJobHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly takes: JobTakes,
    private readonly payloads: PayloadStore,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.job.submit)
  async handle(ctx: CommandContext<SubmitJobCommand>): Promise<SubmitResult> {
    const { envelope, payload, manager, now } = ctx;
    if (payload.take && payload.take.endpointId !== payload.endpointId) {
      throw new DomainError(ErrorCode.ValidationFailed, "a submit's take must be for the job's own endpoint");
    }
    const id = jobIdFor(envelope.commandId, payload.sync);
    const input = payload.inputBlob ? await this.loadInput(payload) : payload.input;
    if (input === undefined) throw new DomainError(ErrorCode.ValidationFailed, 'input is required');
    const unstorable = unstorableJson(input);
    if (unstorable) {
      throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
        unstorableJsonError('input', unstorable),
      ]);
    }
    const job = newQueuedJob(
      {
        id,
        endpointId: payload.endpointId,
        ownerId: envelope.actor.userId,
        sync: payload.sync,
        input,
        webhook: payload.webhook,
        s3Config: payload.s3Config,
        policy: payload.policy,
        waitMs: payload.waitMs,
      },
      now,
      this.config.RUN_RETENTION_MS,
    );
    await this.jobs.insert(job, manager);
    if (!payload.take) {
      await this.lifecycle.queued(ctx, job);
      return { id, status: 'IN_QUEUE' };
    }
    // Alone in its transaction and live, the take is guessed to lease this job: it answers without waiting for the
    // lease, and the submit is applied again, reading, should that be wrong (another job queued, the worker lost).
    const taken =
      ctx.mayGuess && ctx.decided === undefined
        ? await this.takes.takeSubmitted(ctx, payload.take, job)
        : await this.takes.take(ctx, payload.take, ctx.decided);
    // Leased at once: nobody else need be woken for it. Left queued (older jobs went first): as any submit.
    if (!takenJobIds(taken).includes(id)) await this.lifecycle.queued(ctx, job);
    return { id, status: 'IN_QUEUE', taken };
  }

  private async loadInput(payload: SubmitJobCommand): Promise<unknown> {
    try {
      const text = await this.payloads.loadText(payload.inputBlob!);
      // Checked once parsed, as an inline input is (handle).
      return JSON.parse(text) as unknown;
    } catch (error) {
      if (error instanceof BlobMissingError) {
        throw new DomainError(
          ErrorCode.BadRequest,
          `the job's input is no longer available (${error.message})`,
        );
      }
      throw error;
    }
  }
}
