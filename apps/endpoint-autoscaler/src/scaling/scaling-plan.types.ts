import type { PodView, QueueStats } from '@app/contracts';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import type { WorkerDesired, WorkerEntity } from '../workers/worker.entity.js';

/** The scaling plan's input (a snapshot, as plain data) and output (named buckets, each entry with its reason). */

/** The pod command that brings a pod to what the autoscaler wants of it. */
export type PodAction = 'start' | 'stop' | 'terminate';
export const COMMAND_FOR: Record<WorkerDesired, PodAction> = {
  RUNNING: 'start',
  EXITED: 'stop',
  TERMINATED: 'terminate',
};

export type PlanEndpoint = Pick<
  EndpointEntity,
  | 'type'
  | 'deletedAt'
  | 'flashBoot'
  | 'idleTimeout'
  | 'scalerType'
  | 'scalerValue'
  | 'workersMin'
  | 'workersMax'
>;
export type PlanWorker = Pick<
  WorkerEntity,
  'podId' | 'created' | 'desired' | 'podStatus' | 'actionSeq' | 'desiredSince' | 'idleSince'
>;
export type PlanPod = Pick<PodView, 'status' | 'desiredStatus' | 'statusReason'>;
export type PlanQueueStats = Pick<
  QueueStats,
  | 'inQueue'
  | 'inQueueNonLowPriority'
  | 'inProgress'
  | 'oldestQueuedAgeMs'
  | 'recycleWorkerIds'
  | 'initializingWorkerIds'
>;

/** What the gateways report for a load-balancing endpoint (summed over the replicas; docs/adr/0026). */
export interface PlanLbLoad {
  inFlight: number;
  waiting: number;
  /** Workers with a request in flight now: never stopped, and not idle. */
  busyWorkerIds: string[];
}

/** When pod-lifecycle last refused this endpoint's work (from the `failed` scaling events; null: not lately). */
export interface RecentRefusals {
  /** A worker create refused, for any reason: no new worker for `failureBackoffMs`. */
  createRefusedAt: Date | null;
  /** A create or a resume refused because the owner reached their spend limit: neither for `spendLimitPauseMs`. */
  spendLimitRefusedAt: Date | null;
}

export interface PlanSettings {
  reissueAfterMs: number;
  failureBackoffMs: number;
  spendLimitPauseMs: number;
}

export interface PlanInput {
  endpoint: PlanEndpoint;
  /**
   * Every worker row of the endpoint, with its pod as pod-lifecycle shows it (null: never created, or gone), and
   * whether its pod is on a DRAINING host (`endpoint.cmd.drain-workers`; absent: not).
   */
  workers: { worker: PlanWorker; pod: PlanPod | null; draining?: boolean }[];
  /** The broker's counts; null for an endpoint that runs no workers (deleted, load-balancing): nobody asks. */
  stats: PlanQueueStats | null;
  /**
   * The gateways' load for a load-balancing endpoint; null for any other, and for an LB endpoint while this
   * process has not listened to the gateways long enough to know it (the LB endpoint is then left as it is).
   */
  lbLoad?: PlanLbLoad | null;
  refusals: RecentRefusals;
  now: Date;
  settings: PlanSettings;
}

/** The numbers a scaling event carries besides its reason (0, 0 and {} for a change the scaler did not size). */
export interface Tally {
  workersBefore: number;
  workersDesired: number;
  inputs: Record<string, number | string | null>;
}

/** A worker whose wanted state changes: its row first, then the command `COMMAND_FOR[desired]`. */
export interface PlannedChange {
  podId: string;
  desired: WorkerDesired;
  /** The row's new action count (part of the command id). */
  actionSeq: number;
  /** A stopped or terminated idle worker is not idle any more (its idle time is over). */
  clearIdle: boolean;
  reason: string;
  tally: Tally;
}

export interface PlannedCreate {
  reason: string;
  tally: Tally;
}

/** A command issued again with the id it had (its effect is not visible yet; after a restart, at once). */
export interface PlannedReissue {
  podId: string;
  command: 'create' | PodAction;
  actionSeq: number;
  reason: string;
}

/** A worker row that goes; `failed` records it as a failed scaling event (the pod went without being asked). */
export interface PlannedDrop {
  podId: string;
  failed: boolean;
  reason: string;
}

/** Bookkeeping of a row without a command: the pod status as last seen, and since when it is idle. */
export interface PlannedRefresh {
  podId: string;
  podStatus?: string;
  idleSince?: Date | null;
}

export interface ScalingPlan {
  create: PlannedCreate[];
  resume: PlannedChange[];
  stop: PlannedChange[];
  terminate: PlannedChange[];
  reissue: PlannedReissue[];
  drop: PlannedDrop[];
  refresh: PlannedRefresh[];
  /** A deleted endpoint: its queue is purged (a derived command id, so every tick may ask). */
  purgeQueue: boolean;
  /** A deleted endpoint without workers left: its row goes. */
  removeEndpoint: boolean;
  /** Why a scale-up was held back (a refusal's back-off), for the log. */
  held: string[];
  /** Workers up or coming up, and wanted (endpoints the scaler sized this tick; for the gauges). */
  counts: { current: number; desired: number } | null;
}
