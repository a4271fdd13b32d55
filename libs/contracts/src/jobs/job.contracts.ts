import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsBoolean,
  IsDefined,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Opaque, OpaqueInBody } from '../common/opaque.js';
import { JobLimits } from './job.model.js';
import type { BlobRef } from './payload-blobs.js';
import { IsWebhookUrl } from './webhook.contracts.js';

const ID_MAX = 200;

/** Request `policy` (compatibility.md §1). */
export class JobPolicy {
  @IsOptional()
  @IsInt()
  @Min(JobLimits.executionTimeoutMs.min)
  @Max(JobLimits.executionTimeoutMs.max)
  executionTimeout?: number;

  @IsOptional()
  @IsBoolean()
  lowPriority?: boolean;

  @IsOptional()
  @IsInt()
  @Min(JobLimits.ttlMs.min)
  @Max(JobLimits.ttlMs.max)
  ttl?: number;
}

/** Body of POST /run and /runsync. `input` is opaque: the endpoint's handler defines it. */
export class RunJobDto {
  /** Required (null included): a missing input is refused with 422 rather than queued as an empty job. */
  @IsDefined()
  @OpaqueInBody()
  input: unknown;

  @IsOptional()
  @IsWebhookUrl()
  webhook?: string;

  /** Sent by the JS SDK's type; treated like `webhook`. */
  @IsOptional()
  @IsWebhookUrl()
  webhookV2?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => JobPolicy)
  policy?: JobPolicy;

  /** Passed to the worker with the job, as the public service does. */
  @IsOptional()
  @IsObject()
  s3Config?: Record<string, unknown>;
}

class EndpointScoped {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  endpointId: string;
}

class JobScoped extends EndpointScoped {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  jobId: string;
}

// ---- job.* commands (actor: the endpoint's user, or `system` for the broker's own timers) -----------------------

export class JobRefCommand extends JobScoped {}

export class PurgeQueueCommand extends EndpointScoped {}

/** `job.cmd.set-ttl` (GET /status?ttl=): the job (and its result) is kept `ttlMs` from now. */
export class SetJobTtlCommand extends JobScoped {
  @IsInt()
  @Min(JobLimits.ttlMs.min)
  @Max(JobLimits.ttlMs.max)
  ttlMs: number;
}

/** The workers of a host lost (UNHEALTHY or GONE): a pod worker's id is its pod id. */
export class LostHostWorkers {
  @IsString()
  @IsNotEmpty()
  hostId: string;

  @IsIn(['UNHEALTHY', 'GONE'])
  state: 'UNHEALTHY' | 'GONE';

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string | null;

  /** Ids of no known worker (other pods of the host) are ignored. */
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  workerIds: string[];
}

/**
 * `job.cmd.sweep`: the broker's timer: lost workers, execution timeouts, ttl and retention expiry; and, recorded by
 * the broker when it hears `placement.evt.preempted`, the workers known to be gone at once.
 */
export class SweepJobsCommand {
  /**
   * False for the first WORKER_LOST_AFTER_MS after the broker starts: pings recorded while it was down are still
   * being applied, so silence is not yet proof that a worker is gone.
   */
  @IsBoolean()
  detectLostWorkers: boolean;

  /**
   * Workers whose pods were preempted (a pod worker's id is its pod id, `RUNPOD_POD_ID`): lost now, without waiting
   * for their silence, and their jobs handed back. Ids of no known worker (other pods of the preemption) are ignored.
   */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  preemptedWorkerIds?: string[];

  /**
   * Workers whose pods were on a host that became UNHEALTHY or GONE (recorded by the broker when it hears
   * `fleet.evt.host-changed`): lost now and their jobs handed back, as for a preemption.
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => LostHostWorkers)
  lostHost?: LostHostWorkers;
}

// ---- job.* queries ----------------------------------------------------------------------------------------------

export class GetJobQuery extends JobScoped {}

export class EndpointJobsQuery extends EndpointScoped {}

/** `job.qry.queue-stats-many`: the queue statistics of many endpoints, one per id, in the order asked. */
export class EndpointsJobsQuery {
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsString({ each: true })
  @MaxLength(ID_MAX, { each: true })
  endpointIds: string[];
}

// ---- worker.* commands (actor: the user whose worker key or full key made the call) -----------------------------

export class WorkerScoped extends EndpointScoped {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  workerId: string;
}

/**
 * A command the edge issues, maybe again and again, while it holds one long poll of the worker (job-take,
 * job-stop). Only the worker's own requests prove it alive: `requestedAt` is when the HTTP request arrived, and the
 * broker records that as the worker's last call, not the time of the repeat (a frozen worker whose long poll the
 * edge keeps asking for must still be declared lost).
 */
export class LongPollScoped extends WorkerScoped {
  @IsOptional()
  @IsISO8601({ strict: true })
  requestedAt?: string;
}

/** `worker.cmd.take` (job-take, job-take-batch): leases up to `batchSize` queued jobs to the worker. */
export class TakeJobsCommand extends LongPollScoped {
  @IsInt()
  @Min(1)
  @Max(JobLimits.maxBatchSize)
  batchSize: number;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  gpu?: string;
}

/** What a submit says about its job besides its input: `job.cmd.submit`'s, and each job's of `job.cmd.submit-many`. */
class JobSettings {
  @IsBoolean()
  sync: boolean;

  @IsOptional()
  @IsWebhookUrl()
  webhook?: string;

  @IsOptional()
  @IsObject()
  s3Config?: Record<string, unknown>;

  @IsOptional()
  @ValidateNested()
  @Type(() => JobPolicy)
  policy?: JobPolicy;

  /** /runsync: the wait asked for, which sets how long the result is kept (1 to 5 minutes). */
  @IsOptional()
  @IsInt()
  @Min(0)
  waitMs?: number;
}

/**
 * `job.cmd.submit`: records a job IN_QUEUE. The input travels inline, or as a blob when it is too large. Declared
 * after TakeJobsCommand, whose class its `take` names (decorator metadata reads it when the class is defined).
 */
export class SubmitJobCommand extends JobSettings {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  endpointId: string;

  @Opaque()
  input?: unknown;

  @IsOptional()
  @IsObject()
  inputBlob?: BlobRef;

  /**
   * A job-take long poll of the issuing gateway that was waiting for a job of this endpoint: the submit leases to it
   * in its own transaction, as that take would have (oldest queued jobs first, so possibly not this one), and
   * answers what it leased in `taken` (docs/adr/0013, "Piggy-backed take"). Same endpoint only.
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => TakeJobsCommand)
  take?: TakeJobsCommand;
}

/** The most jobs one `job.cmd.submit-many` carries (the gateway batches at most this many submits into one). */
export const SUBMIT_MANY_MAX = 128;

/**
 * One job of a `job.cmd.submit-many`: a submit's fields but a take and a blob (a submit carrying either goes alone).
 * `id` is the id the job's own submit command would have had: the job's id derives from it, as from that command's.
 */
export class SubmitManyItem extends JobSettings {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX)
  id: string;

  /** Required, null refused: as the edge requires of a request's input (RunJobDto). */
  @IsDefined()
  @Opaque()
  input: unknown;
}

/**
 * `job.cmd.submit-many`: the submits of concurrent requests to one endpoint by one caller, batched by a gateway into
 * one recorded command (docs/adr/0013, "Batched submits"). Applied as that many submits, in order, in one
 * transaction; answered with each job's `{id, status}` in the same order.
 */
export class SubmitManyCommand extends EndpointScoped {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SUBMIT_MANY_MAX)
  @ValidateNested({ each: true })
  @Type(() => SubmitManyItem)
  jobs: SubmitManyItem[];
}
