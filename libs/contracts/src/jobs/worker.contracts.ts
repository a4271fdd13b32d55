import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsISO8601,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Opaque } from '../common/opaque.js';
import { LongPollScoped, WorkerScoped } from './job.contracts.js';
import type { BlobRef } from './payload-blobs.js';

// The commands of what a worker posts (job-done, job-stream, ping, job-stop) and of its registration; job-take's is
// in job.contracts.ts, since a submit may carry one.

const ID_MAX = 200;

/** A worker's post to job-done: a final result or a progress update (`worker.cmd.done`'s, each of `done-many`'s). */
export class JobResult {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  jobId: string;

  @Opaque()
  output?: unknown;

  @IsOptional()
  @IsObject()
  outputBlob?: BlobRef;

  /** Whether `output` was present in the body at all (`output: null` is an output). */
  @IsBoolean()
  hasOutput: boolean;

  /** The handler's error: a string (compatibility.md §2 keeps it as the worker sent it). */
  @IsOptional()
  @IsString()
  error?: string;

  /** `{status: "IN_PROGRESS", output}`: a progress update; the job stays IN_PROGRESS. */
  @IsBoolean()
  progress: boolean;

  @IsBoolean()
  stopPod: boolean;

  /** Set by the edge when the body was larger than the kept output may be: the job fails with that reason. */
  @IsOptional()
  @IsInt()
  @Min(0)
  oversizeBytes?: number;
}

/** `worker.cmd.done` (job-done): a final result or a progress update. */
export class JobDoneCommand extends JobResult {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  endpointId: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  workerId: string;
}

/** The most results one `worker.cmd.done-many` carries (the gateway batches at most this many posts into one). */
export const DONE_MANY_MAX = 128;

/**
 * One post of a `worker.cmd.done-many`. `id` is the id the post's own `worker.cmd.done` would have had: what the
 * broker derives from a command's id (the ignored-result record, the output blob's name) it derives from this.
 */
export class DoneManyItem extends JobResult {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  id: string;
}

/**
 * `worker.cmd.done-many`: the job-done posts of one worker that came while one of its posts was on its way, batched
 * by a gateway into one recorded command (docs/adr/0013, "Batched results"). Applied as that many `worker.cmd.done`, in
 * order, in one transaction; answered with each post's result in the same order.
 */
export class JobDoneManyCommand extends WorkerScoped {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(DONE_MANY_MAX)
  @ValidateNested({ each: true })
  @Type(() => DoneManyItem)
  dones: DoneManyItem[];
}

/** `worker.cmd.stream` (job-stream): one chunk of a streaming job's output. */
export class JobStreamCommand extends WorkerScoped {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  jobId: string;

  @Opaque()
  output?: unknown;

  @IsOptional()
  @IsObject()
  outputBlob?: BlobRef;
}

/** `worker.cmd.ping`: heartbeat; `jobIds` are the jobs the worker says it is running. */
export class PingWorkerCommand extends WorkerScoped {
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  jobIds: string[];

  @IsBoolean()
  unhealthy: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  version?: string;

  /**
   * When the heartbeat reached the edge. Its `jobIds` are what the worker ran when it sent it, so the lease check
   * counts from this time, not from the command's: a heartbeat held at the edge (an endpoint lookup during an
   * outage) must not take back a job the worker received meanwhile. Absent: the command's time.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  requestedAt?: string;
}

/** `worker.cmd.collect-stops` (job-stop): the jobs the worker must abandon, each handed out once. */
export class CollectStopsCommand extends LongPollScoped {}

/** `worker.cmd.register`: a worker pod was started for the endpoint (counts as initializing until it calls). */
export class RegisterWorkerCommand extends WorkerScoped {
  /**
   * When the autoscaler decided to create the worker (its row and `create` scaling event): the start of its cold
   * start's placement phase. Absent (an older autoscaler): the worker has no placement phase.
   */
  @IsOptional()
  @IsISO8601({ strict: true })
  decidedAt?: string;

  /** When pod-lifecycle answered the pod's create (placed): the end of the placement phase. Absent: the command's time. */
  @IsOptional()
  @IsISO8601({ strict: true })
  placedAt?: string;
}
