import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import type { PodLogLine } from '../pods/pod-logs.contracts.js';
import { JOB_STATUSES, type JobStatus } from './job.model.js';

// The job history of an endpoint (GET /v2/serverless/{id}/jobs, docs/adr/0042-job-history.md): the broker answers
// `job.qry.list` and `job.qry.detail` once the gateway has checked the endpoint is the caller's.

/** The most rows one page of the list holds. */
export const JOB_LIST_MAX_LIMIT = 100;
/** Characters of a payload's JSON text a list row shows. */
export const JOB_PREVIEW_CHARS = 200;

/** Where a page starts: after this row of the page before (the list is ordered by createdAt, then id, newest first). */
export class JobListCursor {
  @IsISO8601({ strict: true })
  createdAt: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  id: string;
}

/** `job.qry.list`: the endpoint's jobs, newest first, filtered. */
export class ListEndpointJobsQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(JOB_STATUSES.length)
  @IsIn(JOB_STATUSES, { each: true })
  statuses?: JobStatus[];

  /** Jobs created at or after this time. */
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  /** Jobs created before this time. */
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => JobListCursor)
  after?: JobListCursor;

  @IsInt()
  @Min(1)
  @Max(JOB_LIST_MAX_LIMIT)
  limit: number;
}

/** `job.qry.detail`: one job of the endpoint's history. */
export class GetJobDetailQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  jobId: string;
}

/** A payload as a list row shows it: the start of its JSON text and the size of the whole. */
export interface PayloadPreview {
  preview: string;
  /** Bytes of its JSON text (UTF-8). */
  bytes: number;
  truncated: boolean;
}

/** One row of the list. Payload previews are null once the job's result has expired (`resultExpired`). */
export interface JobSummaryView {
  id: string;
  status: JobStatus;
  createdAt: string;
  /** When its last attempt started; null while it never ran. */
  startedAt: string | null;
  /** When it finished; null while queued or running. */
  completedAt: string | null;
  /** ms from (re)queued to started. */
  delayTime: number | null;
  /** ms from started to finished. */
  executionTime: number | null;
  /** The worker (its pod's id) that ran it last. */
  workerId: string | null;
  /** Leases of the job: a lost worker's job is leased again. */
  attempts: number;
  /** POST /retry calls. */
  retries: number;
  /** Submitted by /runsync. */
  sync: boolean;
  /** Sizes stay after the result expired; previews do not. */
  inputBytes: number;
  outputBytes: number | null;
  errorBytes: number | null;
  input: PayloadPreview | null;
  output: PayloadPreview | null;
  error: PayloadPreview | null;
  /** Until when its input, output and error are kept (then only this record stays). */
  resultExpiresAt: string;
  resultExpired: boolean;
}

export interface JobListView {
  jobs: JobSummaryView[];
  /** The cursor of the next page (opaque at the edge); null on the last. */
  next: JobListCursor | null;
}

/** One lease of the job to a worker. */
export interface JobAttemptView {
  attempt: number;
  workerId: string;
  startedAt: string;
  endedAt: string | null;
  /** COMPLETED, FAILED, CANCELLED, TIMED_OUT, WORKER_LOST, UNCONFIRMED; null while it runs. */
  outcome: string | null;
}

/** The phases of a job, in ms; null for a phase not reached. */
export interface JobPhases {
  /** From its last (re)queueing to its start (delayTime). */
  queued: number | null;
  /** From its start to its end, or to now while it runs (executionTime). */
  running: number | null;
  /** From its creation to its end, or to now. */
  total: number;
}

/** `job.qry.detail`: the whole record; input, output and error whole while the result is kept, else absent. */
export interface JobDetailView extends Omit<JobSummaryView, 'input' | 'output' | 'error'> {
  endpointId: string;
  input?: unknown;
  output?: unknown;
  error?: string;
  phases: JobPhases;
  /** Its leases to workers, oldest first. */
  leases: JobAttemptView[];
  /** Stream chunks the worker sent (a streaming job's); 0 for others. */
  streamChunks: number;
}

// ---- what the edge answers (GET /v2/serverless/{id}/jobs …) --------------------------------------------------

/** A page of the list; `next` is the opaque cursor of the next page (`?cursor=`), null on the last. */
export interface JobPage {
  jobs: JobSummaryView[];
  next: string | null;
}

/** The worker's log lines around the job: printed from a little before it started to a little after it ended. */
export interface JobLogWindow {
  podId: string;
  from: string;
  to: string;
  lines: PodLogLine[];
  /** More lines were printed in the window than are shown (the first ones are). */
  truncated: boolean;
}

/** One job at the edge: the broker's record and its worker's log lines (null when it never ran). */
export interface JobDetail extends JobDetailView {
  logs: JobLogWindow | null;
}
