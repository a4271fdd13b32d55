import {
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';

/** What a pod costs per hour, snapshotted from the catalog when it is placed (ADR 21). */
export interface UsageRates {
  /** GPUs (price per GPU × count) or a CPU pod, per hour while it holds them. */
  computePerHr: number;
  /** Per GB of container disk per hour, until the pod is terminated. */
  containerDiskPerGbHr: number;
}

export const USAGE_BUCKETS = ['hour', 'day'] as const;
export type UsageBucket = (typeof USAGE_BUCKETS)[number];

/**
 * What a usage query answers per record: one resource in one bucket, or (`family`) one family of pods in one
 * bucket, `resourceId` naming the family: `pod` (standalone pods), `cluster` (members) or `endpoint` (workers).
 */
export const USAGE_GROUPINGS = ['pod', 'cluster', 'endpoint', 'family'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** Most records one usage reply may hold when paged (a record is a few hundred bytes; a reply at most 1 MB). */
export const MAX_USAGE_PAGE = 2000;

/** Whether a usage query names the record its page follows (`afterBucket` and `afterResourceId` go together). */
const paged = (q: UsageQuery) => q.afterBucket !== undefined || q.afterResourceId !== undefined;

/** Usage of the caller's resources in `[from, to)`, cut into buckets (UTC hours or days). */
export class UsageQuery {
  @IsISO8601({ strict: true })
  from: string;

  @IsISO8601({ strict: true })
  to: string;

  @IsIn(USAGE_BUCKETS)
  bucket: UsageBucket;

  /** Pods: one record per pod, cluster (members only), endpoint (workers only) or family, and bucket. */
  @IsOptional()
  @IsIn(USAGE_GROUPINGS)
  groupBy?: UsageGrouping;

  /** Only this resource (a pod, cluster, endpoint or volume id, after the grouping). */
  @IsOptional()
  @IsString()
  resourceId?: string;

  /**
   * At most this many records (a page): a large account's records may not fit in one reply of the bus (NATS'
   * max_payload, 1 MB by default), so the gateway reads them in pages (owner-queries/usage-pages.ts, ADR 46).
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_USAGE_PAGE)
  limit?: number;

  /** The page after this record (the last of the page before), in the records' order: by bucket, then resource. */
  @ValidateIf(paged)
  @IsISO8601({ strict: true })
  afterBucket?: string;

  @ValidateIf(paged)
  @IsString()
  @IsNotEmpty()
  afterResourceId?: string;
}

/** Pod usage of one resource in one bucket: seconds held and what they cost. */
export interface PodUsageRecord {
  /** Start of the bucket (ISO 8601, UTC). */
  bucket: string;
  /** The pod, cluster or endpoint id, or the family (per `groupBy`). */
  resourceId: string;
  gpuTypeId: string | null;
  /** Seconds the compute (GPUs or a CPU slot) was held, summed over pods. */
  computeSeconds: number;
  /** GPU-seconds (seconds × GPUs). */
  gpuSeconds: number;
  computeCost: number;
  /** GB-seconds of container disk. */
  diskGbSeconds: number;
  diskCost: number;
}

/** Network volume usage of one volume in one bucket. */
export interface VolumeUsageRecord {
  bucket: string;
  resourceId: string;
  /** GB-seconds held. */
  gbSeconds: number;
  cost: number;
}
