import { Injectable } from '@nestjs/common';
import {
  BlobMissingError,
  JobLimits,
  type JobDoneResult,
  type JobResult,
  describeUnstorable,
  unstorableJson,
} from '@app/contracts';
import { JobLifecycle, type Tx } from '../jobs/job-lifecycle.js';
import type { JobEntity } from '../jobs/job.entity.js';
import { JobsRepository } from '../jobs/jobs.repository.js';
import { PayloadStore } from '../payloads/payload-store.js';

type Output = { ok: true; hasOutput: boolean; output: unknown } | { ok: false; reason: string };

/** Who posted: the worker and its endpoint. */
export interface Poster {
  endpointId: string;
  workerId: string;
}

/**
 * What a job-done post does to its job, whether it came alone (`worker.cmd.done`) or batched with others of its worker
 * (`worker.cmd.done-many`): the final result (COMPLETED, or FAILED with the handler's error, keeping any output), or
 * a progress update. Never a refusal: a result for a job no longer leased to this worker (finished already,
 * cancelled, timed out, taken back) changes nothing, is recorded in `ignored_results`, and is answered 200, so a
 * retried post is harmless and a late progress update never overwrites the final result.
 */
@Injectable()
export class JobResults {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly payloads: PayloadStore,
  ) {}

  /**
   * Applies `post` to `job` (read and locked in this transaction; null when there is none). `postId` is the id of the
   * post's own command, which what is recorded for it derives from.
   */
  async apply(
    tx: Tx,
    by: Poster,
    post: JobResult,
    job: JobEntity | null,
    postId: string,
  ): Promise<JobDoneResult> {
    const kind = post.progress ? 'progress' : 'done';
    const ignore = async (reason: string): Promise<JobDoneResult> => {
      await this.jobs.recordIgnored(
        { jobId: post.jobId, workerId: by.workerId, kind, reason, receivedAt: tx.now },
        postId,
        tx.manager,
      );
      return { recorded: 'ignored', reason };
    };
    if (!job || job.endpointId !== by.endpointId) return ignore('no such job on this endpoint');
    if (job.status !== 'IN_PROGRESS') return ignore(`the job is ${job.status}`);
    if (job.leaseWorkerId !== by.workerId) return ignore(`the job is leased to worker ${job.leaseWorkerId}`);

    const output = await this.output(post);
    if (post.progress) {
      if (!output.ok) return ignore(output.reason);
      job.hasOutput = output.hasOutput;
      job.output = output.hasOutput ? output.output : null;
      await this.lifecycle.save(tx, job);
      return { recorded: 'progress' };
    }
    if (!output.ok) {
      await this.lifecycle.finish(tx, job, 'FAILED', { hasOutput: false, error: output.reason });
      return { recorded: 'failed', reason: output.reason };
    }
    if (post.error !== undefined) {
      await this.lifecycle.finish(tx, job, 'FAILED', {
        hasOutput: output.hasOutput,
        output: output.output,
        error: post.error,
      });
      return { recorded: 'failed' };
    }
    await this.lifecycle.finish(tx, job, 'COMPLETED', {
      hasOutput: output.hasOutput,
      output: output.output,
    });
    return { recorded: 'completed' };
  }

  /** The output, read from its blob if it came as one, or why it cannot be kept. */
  private async output(post: JobResult): Promise<Output> {
    if (post.oversizeBytes !== undefined) return tooLarge(post.oversizeBytes);
    if (!post.hasOutput) return { ok: true, hasOutput: false, output: null };
    let text: string;
    if (post.outputBlob) {
      try {
        text = await this.payloads.loadText(post.outputBlob);
      } catch (error) {
        if (error instanceof BlobMissingError) {
          return { ok: false, reason: `the worker's output was lost in transit (${error.message})` };
        }
        throw error;
      }
    } else {
      text = JSON.stringify(post.output ?? null);
    }
    const bytes = Buffer.byteLength(text);
    if (bytes > JobLimits.outputBytes) return tooLarge(bytes);
    const output = post.outputBlob ? (JSON.parse(text) as unknown) : post.output;
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
