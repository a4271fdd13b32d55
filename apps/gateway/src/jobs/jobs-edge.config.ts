import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * Settings of the queue and worker routes (validated at boot by `loadConfig`, like the app's own config; see
 * .env.example and docs/adr/0008-jobs-and-workers.md).
 */
export class JobsEdgeConfig {
  /** Longest a job-take (and job-take-batch) long poll is held before answering 204. */
  @IsInt()
  @Min(0)
  @Max(85_000)
  @Type(() => Number)
  JOB_TAKE_LONG_POLL_MS = 60_000;

  /** Longest a job-stop long poll is held before answering an empty list. */
  @IsInt()
  @Min(0)
  @Max(85_000)
  @Type(() => Number)
  JOB_STOP_LONG_POLL_MS = 60_000;

  /** While a long poll waits for a signal, it asks the broker again this often anyway (a missed signal). */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  JOB_POLL_RECHECK_MS = 15_000;

  /** /runsync and /status-sync re-read the job this often while they wait (besides the change signal). */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  JOB_SYNC_RECHECK_MS = 2000;

  /** GET /stream waits up to this long for a new chunk before answering an empty `stream`. */
  @IsInt()
  @Min(0)
  @Max(60_000)
  @Type(() => Number)
  JOB_STREAM_LONG_POLL_MS = 5000;

  /** How long an endpoint's record (`endpoint.qry.get`) is reused; at most 2 s. */
  @IsInt()
  @Min(0)
  @Max(2000)
  @Type(() => Number)
  ENDPOINT_CACHE_MS = 2000;

  /**
   * How long a finished job's view is served from the gateway's memory (kept fresh by the broker's events; this
   * bounds the staleness if those were lost). 0 turns the read model off.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  @Type(() => Number)
  JOB_VIEW_CACHE_MS = 60_000;

  /** Memory the finished-job views may take, in bytes (the least recently read go first). */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  JOB_VIEW_CACHE_BYTES = 64 * 1024 * 1024;

  /**
   * How long after asking the broker a job-take poll may still hand the worker what its take leased: the take's
   * wait for its answer, and the bound on a take that rode on a submit. A later answer is not handed out; the
   * broker takes those jobs back unconfirmed at the worker's next heartbeat. Keep it below the broker's
   * LEASE_CONFIRM_GRACE_MS by more than a heartbeat's trip (a few seconds): a job handed out later could be taken
   * back by a heartbeat the worker sent before it had the job, and then run twice.
   */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  JOB_TAKE_HAND_OUT_MS = 30_000;

  /** How long a worker call waits for the broker's answer to its command. */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  WORKER_COMMAND_TIMEOUT_MS = 30_000;
}
