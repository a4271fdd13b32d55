import { Injectable } from '@nestjs/common';
import {
  JobLimits,
  Subjects,
  describeUnstorable,
  unstorableJson,
  type JobStreamCommand,
  type JobStreamResult,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { JobLifecycle } from '../../jobs/job-lifecycle.js';
import { splitChunk } from '../../jobs/job.rules.js';
import { JobChunksRepository } from '../../jobs/job-chunks.repository.js';
import { JobsRepository } from '../../jobs/jobs.repository.js';
import { PayloadStore } from '../../payloads/payload-store.js';
import { WorkersRepository } from '../workers.repository.js';

/** job-stream: one chunk of a streaming job, stored in order (split into pieces of at most 1 MB). */
@Injectable()
export class JobStreamHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly chunks: JobChunksRepository,
    private readonly workers: WorkersRepository,
    private readonly lifecycle: JobLifecycle,
    private readonly payloads: PayloadStore,
  ) {}

  @CommandHandler(Subjects.worker.stream)
  async handle(ctx: CommandContext<JobStreamCommand>): Promise<JobStreamResult> {
    const { payload, manager, now, envelope } = ctx;
    await this.workers.touch(payload.endpointId, payload.workerId, now, manager);
    const job = await this.jobs.lockById(payload.jobId, manager);
    const ignore = async (reason: string): Promise<JobStreamResult> => {
      await this.jobs.recordIgnored(
        { jobId: payload.jobId, workerId: payload.workerId, kind: 'stream', reason, receivedAt: now },
        envelope.commandId,
        manager,
      );
      return { recorded: false, chunks: 0, reason };
    };
    if (!job || job.endpointId !== payload.endpointId) return ignore('no such job on this endpoint');
    if (job.status !== 'IN_PROGRESS') return ignore(`the job is ${job.status}`);
    if (job.leaseWorkerId !== payload.workerId) {
      return ignore(`the job is leased to worker ${job.leaseWorkerId}`);
    }
    const text = payload.outputBlob
      ? await this.payloads.loadText(payload.outputBlob)
      : JSON.stringify(payload.output ?? null);
    if (Buffer.byteLength(text) > JobLimits.outputBytes) {
      return ignore('the chunk is larger than a job output may be');
    }
    const output: unknown = payload.outputBlob ? JSON.parse(text) : payload.output;
    const unstorable = unstorableJson(output);
    if (unstorable) {
      return ignore(`the chunk contains ${describeUnstorable(unstorable)}, which cannot be stored`);
    }
    const chunks = splitChunk(output ?? null);
    await this.chunks.appendChunks(
      job,
      chunks.map((c) => c.output),
      now,
      manager,
    );
    job.streamSeq += chunks.length;
    await this.jobs.save(job, manager);
    await this.lifecycle.changed(ctx, job);
    return { recorded: true, chunks: chunks.length };
  }
}
