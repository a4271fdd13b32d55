import { Injectable } from '@nestjs/common';
import {
  BlobMissingError,
  JobLimits,
  Subjects,
  type JobDoneCommand,
  type JobDoneResult,
  describeUnstorable,
  unstorableJson,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobLifecycle } from '../../jobs/job-lifecycle.js';
import { JobsRepository } from '../../jobs/jobs.repository.js';
import { PayloadStore } from '../../payloads/payload-store.js';
import { WorkersRepository } from '../workers.repository.js';

type Output = { ok: true; hasOutput: boolean; output: unknown } | { ok: false; reason: string };

/**
 * job-done: the final result (COMPLETED, or FAILED with the handler's error, keeping any output), or a progress
 * update. Idempotent and never a refusal: a result for a job no longer leased to this worker (finished already,
 * cancelled, timed out, taken back) changes nothing, is recorded in `ignored_results`, and is answered 200, so a
 * retried post is harmless and a late progress update never overwrites the final result.
 */
@Injectable()
export class JobDoneHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly workers: WorkersRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly payloads: PayloadStore,
  ) {}

  @CommandHandler(Subjects.worker.done)
  async handle(ctx: CommandContext<JobDoneCommand>): Promise<JobDoneResult> {
    const { payload, manager, now, envelope } = ctx;
    await this.workers.touch(payload.endpointId, payload.workerId, now, manager, {
      recycle: payload.stopPod,
    });
    const job = await this.jobs.lockById(payload.jobId, manager);
    const kind = payload.progress ? 'progress' : 'done';
    const ignore = async (reason: string): Promise<JobDoneResult> => {
      await this.jobs.recordIgnored(
        { jobId: payload.jobId, workerId: payload.workerId, kind, reason, receivedAt: now },
        envelope.commandId,
        manager,
      );
      return { recorded: 'ignored', reason };
    };
    if (!job || job.endpointId !== payload.endpointId) return ignore('no such job on this endpoint');
    if (job.status !== 'IN_PROGRESS') return ignore(`the job is ${job.status}`);
    if (job.leaseWorkerId !== payload.workerId)
      return ignore(`the job is leased to worker ${job.leaseWorkerId}`);

    const output = await this.output(payload);
    if (payload.progress) {
      if (!output.ok) return ignore(output.reason);
      job.hasOutput = output.hasOutput;
      job.output = output.hasOutput ? output.output : null;
      await this.jobs.save(job, manager);
      return { recorded: 'progress' };
    }
    if (!output.ok) {
      await this.lifecycle.finish(ctx, job, 'FAILED', { hasOutput: false, error: output.reason });
      return { recorded: 'failed', reason: output.reason };
    }
    if (payload.error !== undefined) {
      await this.lifecycle.finish(ctx, job, 'FAILED', {
        hasOutput: output.hasOutput,
        output: output.output,
        error: payload.error,
      });
      return { recorded: 'failed' };
    }
    await this.lifecycle.finish(ctx, job, 'COMPLETED', {
      hasOutput: output.hasOutput,
      output: output.output,
    });
    return { recorded: 'completed' };
  }

  /** The output, read from its blob if it came as one, or why it cannot be kept. */
  private async output(payload: JobDoneCommand): Promise<Output> {
    if (payload.oversizeBytes !== undefined) return tooLarge(payload.oversizeBytes);
    if (!payload.hasOutput) return { ok: true, hasOutput: false, output: null };
    let text: string;
    if (payload.outputBlob) {
      try {
        text = await this.payloads.loadText(payload.outputBlob);
      } catch (error) {
        if (error instanceof BlobMissingError)
          return { ok: false, reason: `the worker's output was lost in transit (${error.message})` };
        throw error;
      }
    } else {
      text = JSON.stringify(payload.output ?? null);
    }
    const bytes = Buffer.byteLength(text);
    if (bytes > JobLimits.outputBytes) return tooLarge(bytes);
    const output = payload.outputBlob ? (JSON.parse(text) as unknown) : payload.output;
    const unstorable = unstorableJson(output);
    if (unstorable) {
      return {
        ok: false,
        reason: `the output contains ${describeUnstorable(unstorable)}, which cannot be stored`,
      };
    }
    return { ok: true, hasOutput: true, output };
  }
}

function tooLarge(bytes: number): Output {
  return {
    ok: false,
    reason: `the output is ${bytes} bytes, more than the ${JobLimits.outputBytes} bytes a job's result may have`,
  };
}
