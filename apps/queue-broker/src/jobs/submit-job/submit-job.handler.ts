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
import { newQueuedJob } from '../new-job.js';
import { SubmitJobs } from '../submit-jobs.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';

/**
 * /run and /runsync: the job row is committed before the edge answers 200 (the command waits for it). A batch of
 * one (submit-jobs.ts), with what only a lone submit carries: an input too large to batch, kept as a blob
 * (`inputBlob`), and a piggy-backed take for a worker's long poll that was waiting at the edge (`take`), which saves
 * that take its own command, its transaction and the queued signal's round (docs/adr/0013, "Piggy-backed take").
 */
@Injectable()
export class SubmitJobHandler {
  constructor(
    private readonly submits: SubmitJobs,
    private readonly payloads: PayloadStore,
    private readonly config: QueueBrokerConfig,
  ) {}

  @CommandHandler(Subjects.job.submit)
  async handle(ctx: CommandContext<SubmitJobCommand>): Promise<SubmitResult> {
    const { envelope, payload, now } = ctx;
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
    const taken = await this.submits.submit(ctx, [job], payload.take);
    return taken ? { id, status: 'IN_QUEUE', taken } : { id, status: 'IN_QUEUE' };
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
