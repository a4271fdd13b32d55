import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { PodStatus } from './pod-status.js';

/**
 * `pod.qry.list-worker-runs`: the caller's pods that serve the endpoint as its workers (created by the autoscaler,
 * which records the endpoint on them) and are not terminated, with how often each has run again. One indexed read,
 * so the workers list joins it to the broker's view without a query per worker.
 */
export class ListWorkerPodRunsQuery {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  endpointId: string;
}

/** One worker pod's runs, as pod-lifecycle records them. */
export interface WorkerPodRun {
  podId: string;
  status: PodStatus;
  /**
   * How many times the pod's container has been started again since it was created: every resume after a stop
   * (FLASHBOOT brings stopped workers back) and every reset or container edit (the pod's `generation`).
   */
  restarts: number;
  /** When its current run began (null until it first started). */
  lastStartedAt: string | null;
}
