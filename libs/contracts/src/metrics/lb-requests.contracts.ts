import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { HISTOGRAM_MAX_BUCKET } from './latency-histogram.js';

/** The status classes of a load-balancing endpoint's requests (docs/adr/0026, "Request metrics"). */
export interface MetricsLbRequestCounts {
  /** The worker answered below 400 (1xx, 2xx and 3xx). */
  status2xx: number;
  /** The worker answered 4xx. */
  status4xx: number;
  /** The worker answered 5xx. */
  status5xx: number;
  /**
   * The gateway answered for the worker: no worker ready in time (504), a worker failed or timed out (502/504),
   * workersMax 0 (409), a request it could not forward (400).
   */
  proxyErrors: number;
}

/** What one gateway replica's LB requests of one endpoint added in one minute. */
export class LbRequestTally implements MetricsLbRequestCounts {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;

  /** The minute the requests ended in (its start, ISO 8601). */
  @IsISO8601()
  minute: string;

  @IsInt()
  @Min(0)
  status2xx: number;

  @IsInt()
  @Min(0)
  status4xx: number;

  @IsInt()
  @Min(0)
  status5xx: number;

  @IsInt()
  @Min(0)
  proxyErrors: number;

  /** Request → response end (ms), in the fixed buckets of latency-histogram.ts. */
  @IsArray()
  @ArrayMaxSize(HISTOGRAM_MAX_BUCKET + 1)
  @IsInt({ each: true })
  @Min(0, { each: true })
  latencyHist: number[];
}

/** The LB workers of one endpoint by status, as one gateway replica sees them at the command's time. */
export class LbWorkerGauge {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;

  /** Ready with a request of this replica in flight. */
  @IsInt()
  @Min(0)
  @Max(100_000)
  running: number;

  @IsInt()
  @Min(0)
  @Max(100_000)
  idle: number;

  @IsInt()
  @Min(0)
  @Max(100_000)
  initializing: number;

  /** Failing /ping, or draining. */
  @IsInt()
  @Min(0)
  @Max(100_000)
  unhealthy: number;
}

/**
 * `job.cmd.record-lb-requests`: a gateway replica's LB request counts since its previous one (a few seconds), and
 * the workers it sees; the broker adds them to the endpoint metrics rollups (docs/adr/0022, docs/adr/0026).
 */
export class RecordLbRequestsCommand {
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  gatewayId: string;

  @IsArray()
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => LbRequestTally)
  requests: LbRequestTally[];

  @IsArray()
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => LbWorkerGauge)
  workers: LbWorkerGauge[];
}
