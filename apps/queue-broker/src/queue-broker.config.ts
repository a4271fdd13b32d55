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
import { BaseConfig, IsAddressList, IsKeyRing } from '@app/config';

/**
 * A take delivered to a broker replica that crashed is applied by another one COMMAND_ACK_WAIT_MS later, its lease
 * dated by the take (ADR 8): a heartbeat in between, which cannot list the job yet, must not count against it.
 */
@ValidatorConstraint({ name: 'longerThanAckWait' })
class LongerThanAckWait implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return typeof value === 'number' && value > (args.object as QueueBrokerConfig).COMMAND_ACK_WAIT_MS;
  }

  defaultMessage(args: ValidationArguments): string {
    const ackWait = (args.object as QueueBrokerConfig).COMMAND_ACK_WAIT_MS;
    return (
      `LEASE_CONFIRM_GRACE_MS must be longer than COMMAND_ACK_WAIT_MS (${ackWait}): a take redelivered after a ` +
      'broker crash is granted that much later, and its worker must have had time to receive the job'
    );
  }
}

/** /health counts from the minute rollups (ADR 22): its window cannot be longer than they are kept. */
@ValidatorConstraint({ name: 'withinMinuteRollups' })
class WithinMinuteRollups implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return (
      typeof value === 'number' && value <= (args.object as QueueBrokerConfig).METRICS_MINUTE_RETENTION_MS
    );
  }

  defaultMessage(args: ValidationArguments): string {
    const kept = (args.object as QueueBrokerConfig).METRICS_MINUTE_RETENTION_MS;
    return `HEALTH_WINDOW_MS must not be longer than METRICS_MINUTE_RETENTION_MS (${kept}): /health counts from the minute rollups`;
  }
}

/** queue-broker's settings, validated once at boot (see .env.example and docs/adr/0008-jobs-and-workers.md). */
export class QueueBrokerConfig extends BaseConfig {
  override HTTP_PORT = 8083;
  override METRICS_PORT = 9083;
  /** Full batches with any number of replicas (ADR 13, "Replicas"): one replica applies each domain's commands. */
  override COMMAND_CONSUMERS: 'exclusive' | 'shared' = 'exclusive';

  /** A worker that has not called (ping, take, done) for this long is lost: its leased jobs are queued again. */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  WORKER_LOST_AFTER_MS = 30_000;

  /** Leases of one job (a lost worker, an unconfirmed lease) before it FAILS with the reason. */
  @IsInt()
  @Min(1)
  @Max(100)
  @Type(() => Number)
  JOB_MAX_ATTEMPTS = 3;

  /**
   * A job leased this long ago that the worker's ping does not list is taken back (the take's answer never
   * reached the worker). Longer than COMMAND_ACK_WAIT_MS (checked).
   */
  @IsInt()
  @Min(1000)
  @Validate(LongerThanAckWait)
  @Type(() => Number)
  LEASE_CONFIRM_GRACE_MS = 60_000;

  /**
   * A cancelled or timed-out job that the worker's heartbeat still lists this long after job-stop named it is named
   * again: the stock Python worker drops a stop that arrives before it has created the job's task and runs the job
   * to its end. Long enough for a heartbeat sent before the stop arrived to be recorded (pings come every 10 s).
   */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  STOP_REPEAT_AFTER_MS = 5000;

  /** A worker pod registered by the autoscaler counts as initializing for at most this long before it calls. */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  WORKER_INIT_TIMEOUT_MS = 600_000;

  /** How often the sweeper looks for lost workers, execution timeouts and expired jobs. */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  SWEEP_INTERVAL_MS = 1000;

  /** Window of the completed/failed/retried counts of /health and job.qry.queue-stats (read from the rollups). */
  @IsInt()
  @Min(60_000)
  @Validate(WithinMinuteRollups)
  @Type(() => Number)
  HEALTH_WINDOW_MS = 30 * 60_000;

  /** Pause between webhook attempts (3 attempts in all, as the public service does). */
  @IsInt()
  @Min(10)
  @Type(() => Number)
  WEBHOOK_RETRY_INTERVAL_MS = 10_000;

  @IsInt()
  @Min(1)
  @Max(20)
  @Type(() => Number)
  WEBHOOK_MAX_ATTEMPTS = 3;

  /** One delivery attempt, connection to last header byte; the response body is not read beyond a small cap. */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /**
   * Webhooks never reach loopback, private, link-local, unique-local, multicast or metadata addresses (checked
   * after name resolution, at connect time) unless they fall in this comma-separated list of addresses and CIDR
   * blocks: for on-prem receivers, e.g. `10.20.0.0/16`. Empty by default.
   */
  @IsAddressList()
  WEBHOOK_ALLOWED_NETWORKS = '';

  /** After a rotation the previous secret still signs (a second signature) for this long. */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  WEBHOOK_SECRET_OVERLAP_MS = 24 * 3600_000;

  /** Key ring the gateway seals the endpoints' webhook signing secrets with (the gateway's REGISTRY_AUTH_KEYS). */
  @IsKeyRing()
  REGISTRY_AUTH_KEYS: string;

  /** Results of /run jobs are kept this long after they finish (the interface: 30 minutes). */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  RUN_RETENTION_MS = 30 * 60_000;

  /**
   * What stays of a finished job once its result expired (its record, without input, output or error) is listed by
   * GET /v2/serverless/{id}/jobs this long after it finished (docs/adr/0042-job-history.md). 0 keeps none.
   */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  JOB_HISTORY_RETENTION_MS = 7 * 24 * 3600_000;

  /** Payload blobs (inputs and outputs larger than one NATS message) are removed after this long. */
  @IsInt()
  @Min(60_000)
  @Type(() => Number)
  PAYLOAD_BLOB_TTL_MS = 24 * 3600_000;

  // ---- endpoint metrics (docs/adr/0022-endpoint-metrics.md) ------------------------------------------------------

  /** How often the metrics leader samples queue depth, oldest job and workers by status, and counts cold starts. */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  METRICS_SAMPLE_MS = 10_000;

  /** Most job events folded into the rollups in one transaction. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  @Type(() => Number)
  METRICS_BATCH_MAX = 1000;

  /** Per-minute rollups are kept this long (the 5m and 1h windows read them). */
  @IsInt()
  @Min(3600_000)
  @Type(() => Number)
  METRICS_MINUTE_RETENTION_MS = 48 * 3600_000;

  /** Per-hour rollups are kept this long (the 24h and 7d windows read them). */
  @IsInt()
  @Min(7 * 24 * 3600_000)
  @Type(() => Number)
  METRICS_HOUR_RETENTION_MS = 35 * 24 * 3600_000;

  /**
   * Endpoints exported with their own `endpoint` label on the per-endpoint Prometheus gauges (the busiest by queue
   * depth and workers); the others are summed under `endpoint="_other"`, so the series stay bounded.
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  @Type(() => Number)
  METRICS_PROMETHEUS_ENDPOINTS = 50;
}
