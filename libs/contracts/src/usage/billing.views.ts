import type { UsageBucket } from './usage.contracts.js';

/** What a compute record (a pod, a cluster, an endpoint's workers) accrued in one bucket. */
export interface ComputeBilling {
  /** Start of the bucket (ISO 8601, UTC). */
  time: string;
  /** The GPU type; null for a CPU pod (or workers of mixed types). */
  gpuTypeId: string | null;
  gpuAmount: number;
  cpuAmount: number;
  /** Container disk, accrued until the pod is terminated (also while it is stopped). */
  diskAmount: number;
  totalAmount: number;
  /** Milliseconds the compute was held (summed over pods). */
  timeBilledMs: number;
  /** GPU-hours (hours × GPUs). */
  gpuHours: number;
  /** Container disk GB-hours. */
  diskGbHours: number;
}

export interface PodBillingRecord extends ComputeBilling {
  podId: string;
}

export interface ClusterBillingRecord extends ComputeBilling {
  clusterId: string;
}

export interface ServerlessBillingRecord extends ComputeBilling {
  endpointId: string;
}

export interface NetworkVolumeBillingRecord {
  time: string;
  networkVolumeId: string;
  /** GB-hours held. */
  gbHours: number;
  amount: number;
}

/** `GET /v2/billing`: one bucket's total and its parts. */
export interface BillingSummaryRecord {
  time: string;
  podAmount: number;
  serverlessAmount: number;
  clusterAmount: number;
  storageAmount: number;
  totalAmount: number;
}

/** The query as resolved, echoed with every v2 answer. */
export interface BillingMetadata {
  startTime: string;
  endTime: string;
  bucketSize: UsageBucket;
  recordCount: number;
  totalAmount: number;
}

export interface PodBillingList {
  records: PodBillingRecord[];
  metadata: BillingMetadata;
}

export interface ClusterBillingList {
  records: ClusterBillingRecord[];
  metadata: BillingMetadata;
}

export interface ServerlessBillingList {
  records: ServerlessBillingRecord[];
  metadata: BillingMetadata;
}

export interface NetworkVolumeBillingList {
  records: NetworkVolumeBillingRecord[];
  metadata: BillingMetadata;
}

export interface BillingSummaryList {
  records: BillingSummaryRecord[];
  metadata: BillingMetadata;
}

/** `/v1/billing/*`: one record per resource and bucket, as a plain array. */
export interface BillingV1Record {
  time: string;
  podId?: string;
  endpointId?: string;
  networkVolumeId?: string;
  gpuTypeId?: string | null;
  amount: number;
  timeBilledMs: number;
}

/** One row of the operator's export (`GET /v2/billing/export`), CSV or JSON lines. */
export interface UsageExportRow {
  time: string;
  family: 'pod' | 'cluster' | 'serverless' | 'network-volume';
  resourceId: string;
  gpuTypeId: string | null;
  computeSeconds: number;
  gpuSeconds: number;
  storageGbSeconds: number;
  computeAmount: number;
  storageAmount: number;
  totalAmount: number;
}

/** The export as text (CSV with a header row, or one JSON object per line). */
export type UsageExport = string;
