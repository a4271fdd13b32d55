import { Injectable } from '@nestjs/common';
import { Subjects, type JobRefCommand, type Packed, type StreamRead } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { PayloadStore } from '../../payloads/payload-store.js';
import { visibleJob } from '../job.rules.js';
import { JobChunksRepository } from '../job-chunks.repository.js';
import { JobsRepository } from '../jobs.repository.js';

/** GET /stream: the chunks not delivered before, in order; each chunk is handed out once. */
@Injectable()
export class ReadStreamHandler {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly chunks: JobChunksRepository,
    private readonly payloads: PayloadStore,
  ) {}

  @CommandHandler(Subjects.job.readStream)
  async handle(ctx: CommandContext<JobRefCommand>): Promise<Packed<StreamRead>> {
    const { payload, manager, now } = ctx;
    const job = visibleJob(
      await this.jobs.lockById(payload.jobId, manager),
      payload.endpointId,
      payload.jobId,
      now,
    );
    const chunks =
      job.streamRead < job.streamSeq ? await this.chunks.readChunks(job.id, job.streamRead, manager) : [];
    if (chunks.length) {
      job.streamRead = chunks[chunks.length - 1].seq + 1;
      await this.jobs.save(job, manager);
    }
    const read: StreamRead = {
      id: job.id,
      status: job.status,
      stream: chunks.map((c) => ({ output: c.output })),
    };
    return this.payloads.pack(`stream-${ctx.envelope.commandId}`, read);
  }
}
