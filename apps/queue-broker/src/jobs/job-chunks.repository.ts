import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { JobStreamChunkEntity } from './job-stream-chunk.entity.js';
import type { JobEntity } from './job.entity.js';

/** The statements on a streaming job's chunks: appended by the worker's stream posts, read once by GET /stream. */
@Injectable()
export class JobChunksRepository {
  async appendChunks(job: JobEntity, outputs: unknown[], now: Date, manager: EntityManager): Promise<void> {
    if (!outputs.length) return;
    await manager.insert(
      JobStreamChunkEntity,
      outputs.map((output, i) => ({
        jobId: job.id,
        seq: job.streamSeq + i,
        output,
        createdAt: now,
      })) as never,
    );
  }

  readChunks(jobId: string, fromSeq: number, manager: EntityManager): Promise<JobStreamChunkEntity[]> {
    return manager
      .getRepository(JobStreamChunkEntity)
      .createQueryBuilder('c')
      .where('c.job_id = :jobId AND c.seq >= :fromSeq', { jobId, fromSeq })
      .orderBy('c.seq', 'ASC')
      .getMany();
  }

  deleteChunks(jobId: string, manager: EntityManager): Promise<unknown> {
    return manager.delete(JobStreamChunkEntity, { jobId });
  }
}
