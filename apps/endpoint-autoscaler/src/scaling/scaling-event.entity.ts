import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const SCALING_ACTIONS = ['create', 'resume', 'stop', 'terminate', 'failed'] as const;
export type ScalingAction = (typeof SCALING_ACTIONS)[number];

/** One decision of the autoscaler that changed (or tried to change) an endpoint's workers, with its reason. */
@Entity({ name: 'scaling_events' })
@Index('scaling_events_endpoint_at_idx', ['endpointId', 'at'])
export class ScalingEventEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @Column({ type: 'timestamptz' })
  at: Date;

  @Column({ type: 'text' })
  action: ScalingAction;

  @Column({ name: 'pod_id', type: 'text', nullable: true })
  podId: string | null;

  /** Workers counted as up before the decision. */
  @Column({ name: 'workers_before', type: 'integer' })
  workersBefore: number;

  /** Workers the scaler wanted. */
  @Column({ name: 'workers_desired', type: 'integer' })
  workersDesired: number;

  @Column({ type: 'text' })
  reason: string;

  /** The inputs of the decision (queue counts, oldest wait, ...). */
  @Column({ type: 'jsonb' })
  inputs: Record<string, number | string | null>;
}
