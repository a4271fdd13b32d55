import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** What the autoscaler wants of a worker pod. */
export type WorkerDesired = 'RUNNING' | 'EXITED' | 'TERMINATED';

/**
 * One worker pod of an endpoint, as the autoscaler manages it. The row is written before the pod is asked for
 * (`pod.cmd.create` with `createCommandId`, so the pod id is known up front and a crash between the two is healed
 * by issuing the same command again); `podStatus` is the pod's status as last seen.
 */
@Entity({ name: 'workers' })
export class WorkerEntity {
  @PrimaryColumn({ name: 'pod_id', type: 'text' })
  podId: string;

  @Index('workers_endpoint_idx')
  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  /** The id of the `pod.cmd.create` command that makes the pod. */
  @Column({ name: 'create_command_id', type: 'text' })
  createCommandId: string;

  /** False until pod-lifecycle has answered the create command. */
  @Column({ type: 'boolean' })
  created: boolean;

  @Column({ type: 'text' })
  desired: WorkerDesired;

  /** The pod's status as last seen (a PodStatus); null before the first look. */
  @Column({ name: 'pod_status', type: 'text', nullable: true })
  podStatus: string | null;

  /** How many start/stop/terminate commands were issued for it (part of their derived command ids). */
  @Column({ name: 'action_seq', type: 'integer' })
  actionSeq: number;

  /** When `desired` last changed. */
  @Column({ name: 'desired_since', type: 'timestamptz' })
  desiredSince: Date;

  /** Since when the worker has had no job in flight (null while it has one, or before it ran). */
  @Column({ name: 'idle_since', type: 'timestamptz', nullable: true })
  idleSince: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
