import { Type } from 'class-transformer';
import {
  IsInt,
  Max,
  Min,
  Validate,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';

/** The least JOB_TAKE_HAND_OUT_MS must stay below the lease grace: a heartbeat's trip from the edge to the broker. */
const HAND_OUT_MARGIN_MS = 1000;

/**
 * A job handed to its worker after the broker's LEASE_CONFIRM_GRACE_MS could be taken back by a heartbeat the
 * worker sent before it had the job, and run twice (ADR 8): the hand-out window must end a heartbeat's trip before.
 */
@ValidatorConstraint({ name: 'withinLeaseGrace' })
class WithinLeaseGrace implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const grace = (args.object as JobsEdgeConfig).LEASE_CONFIRM_GRACE_MS;
    return typeof value === 'number' && value + HAND_OUT_MARGIN_MS <= grace;
  }

  defaultMessage(args: ValidationArguments): string {
    const grace = (args.object as JobsEdgeConfig).LEASE_CONFIRM_GRACE_MS;
    return (
      `JOB_TAKE_HAND_OUT_MS must be at least ${HAND_OUT_MARGIN_MS} ms below LEASE_CONFIRM_GRACE_MS (${grace}): a ` +
      'job handed to its worker later could be taken back by an earlier heartbeat and run twice'
    );
  }
}

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
   * LEASE_CONFIRM_GRACE_MS by more than a heartbeat's trip (a few seconds; the boot check demands one): a job
   * handed out later could be taken back by a heartbeat the worker sent before it had the job, and run twice.
   */
  @IsInt()
  @Min(1000)
  @Validate(WithinLeaseGrace)
  @Type(() => Number)
  JOB_TAKE_HAND_OUT_MS = 30_000;

  /**
   * The queue-broker's lease grace (its LEASE_CONFIRM_GRACE_MS, same default), read here only to check
   * JOB_TAKE_HAND_OUT_MS against it at boot. Set it once for every app (the deployment's shared gpucp-config, the
   * environment `npm start` gives all five); a gateway that is not given it checks against the default.
   */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  LEASE_CONFIRM_GRACE_MS = 60_000;

  /** How long a worker call waits for the broker's answer to its command. */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  WORKER_COMMAND_TIMEOUT_MS = 30_000;
}
