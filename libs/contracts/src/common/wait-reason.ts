/**
 * Why something waits (docs/adr/0039-live-fleet.md): on a job IN_QUEUE, a pod not RUNNING, an endpoint's /health.
 * Ours, beside RunPod's fields (its clients ignore a field they do not know). `code` is for programs, `message`
 * for people, `since` says how long it has held.
 */
export const WAIT_REASON_CODES = [
  /** No READY host with the GPU types and data centers allowed has room (details: gpuTypeIds, dataCenterIds). */
  'NO_CAPACITY',
  /** The account's GPU quota (with what its cohort lends) is used up. */
  'QUOTA_EXCEEDED',
  /** The account's monthly spend limit is reached. */
  'SPEND_LIMIT_REACHED',
  /** The hosts that could take it are unhealthy, cordoned or draining. */
  'HOSTS_UNAVAILABLE',
  /** A worker is on its way (details: phase PLACING | PULLING_IMAGE | STARTING_CONTAINER | WAITING_FOR_WORKER). */
  'WORKER_STARTING',
  /** Workers start and die (details: exitCode, restarts, lastLogLines). */
  'WORKERS_CRASH_LOOPING',
  /** The image cannot be pulled. */
  'IMAGE_PULL_FAILED',
  /** Every worker the endpoint may have is busy. */
  'MAX_WORKERS_REACHED',
  /** The autoscaler holds back after refusals (details: the refusal's code). */
  'THROTTLED',
  /** The endpoint may have no worker at all (workersMax 0). */
  'NO_WORKERS_ALLOWED',
  /** Jobs ahead of it are being taken: it waits its turn. */
  'QUEUED_BEHIND_OTHERS',
  /** Pods: being placed and provisioned (image pull). */
  'PROVISIONING',
  /** Pods: the container is starting. */
  'STARTING',
  /** Pods: stopped by its user, or exited by itself (details: exitCode). */
  'EXITED',
  /** Pods: the runtime reported an error (the sentence says which). */
  'ERROR',
  /** Pods: stopped for a higher-priority or borrowing-back workload. */
  'PREEMPTED',
  /** Pods: its host is draining; stopped at `details.deadline`. */
  'HOST_DRAINING',
  /** Pods: stopped because its host's drain deadline passed. */
  'HOST_DRAINED',
  /** Pods: stopped because its host (or a GPU of it) is unhealthy. */
  'HOST_UNHEALTHY',
  /** Pods: its host left the fleet. */
  'HOST_GONE',
  /** Pods: terminated. */
  'TERMINATED',
] as const;
export type WaitReasonCode = (typeof WAIT_REASON_CODES)[number];

export interface WaitReason {
  code: WaitReasonCode;
  message: string;
  /** ISO time since which it holds. */
  since: string;
  details?: Record<string, unknown>;
}
