import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * When a worker's start passed each of its phases (docs/adr/0022-endpoint-metrics.md, "Cold start phases" under "Where the figures come from"): the
 * autoscaler's decision and the create's answer (carried by `worker.cmd.register`), the pod's first STARTING and
 * RUNNING (pod-lifecycle's `pod.evt.status-changed`). State of recorded commands and events, so a rebuild writes the
 * same rows; the metrics leader reads them when it counts the worker's first job request as a cold start. Either
 * side may come first (a pod can run before its registration is applied), so each fills in its own columns.
 */
@Entity({ name: 'worker_starts' })
@Index('worker_starts_last_at_idx', ['lastAt'])
export class WorkerStartEntity {
  /** The worker's id: its pod's. */
  @PrimaryColumn({ name: 'worker_id', type: 'text' })
  workerId: string;

  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  /** The autoscaler decided to create the worker (null: not said). */
  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true })
  decidedAt: Date | null;

  /** pod-lifecycle answered the pod's create: placed on a host. */
  @Column({ name: 'placed_at', type: 'timestamptz', nullable: true })
  placedAt: Date | null;

  /** The pod first reached STARTING (its image pulled). */
  @Column({ name: 'starting_at', type: 'timestamptz', nullable: true })
  startingAt: Date | null;

  /** The pod first reached RUNNING. */
  @Column({ name: 'running_at', type: 'timestamptz', nullable: true })
  runningAt: Date | null;

  /** The latest time written (the sweep removes rows a day past it whose worker is gone). */
  @Column({ name: 'last_at', type: 'timestamptz' })
  lastAt: Date;
}
