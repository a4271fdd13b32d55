import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { NUMERIC_AS_NUMBER } from '@app/database';

/**
 * Endpoint metrics, per endpoint, resolution (`step_s`: 60 or 3600) and bucket (docs/adr/0022-endpoint-metrics.md).
 * Counters add up what happened in the bucket (from job events, webhook outcomes and worker first polls);
 * histograms are fixed-bucket counts (libs/contracts latency-histogram.ts), added bucket by bucket; gauges keep
 * the peak of the samples taken in the bucket. Written by the metrics leader, the webhook sender and the handler of
 * the gateways' load-balancing counts (`job.cmd.record-lb-requests`).
 */
@Entity({ name: 'endpoint_metric_rollups' })
@Index('endpoint_metric_rollups_age_idx', ['stepS', 'bucketStart'])
export class EndpointRollupEntity {
  @PrimaryColumn({ name: 'endpoint_id', type: 'text' })
  endpointId: string;

  @PrimaryColumn({ name: 'step_s', type: 'integer' })
  stepS: number;

  @PrimaryColumn({ name: 'bucket_start', type: 'timestamptz' })
  bucketStart: Date;

  @Column({ type: 'integer', default: 0 })
  completed: number;

  @Column({ type: 'integer', default: 0 })
  failed: number;

  @Column({ type: 'integer', default: 0 })
  cancelled: number;

  @Column({ name: 'timed_out', type: 'integer', default: 0 })
  timedOut: number;

  @Column({ type: 'integer', default: 0 })
  retried: number;

  @Column({ name: 'delay_hist', type: 'integer', array: true, default: () => "'{}'" })
  delayHist: number[];

  @Column({ name: 'exec_hist', type: 'integer', array: true, default: () => "'{}'" })
  execHist: number[];

  @Column({ name: 'cold_starts', type: 'integer', default: 0 })
  coldStarts: number;

  @Column({ name: 'cold_hist', type: 'integer', array: true, default: () => "'{}'" })
  coldHist: number[];

  /** The cold starts' phases (COLD_START_PHASES in @app/contracts), one histogram each. */
  @Column({ name: 'cold_placement_hist', type: 'integer', array: true, default: () => "'{}'" })
  placementHist: number[];

  @Column({ name: 'cold_runtime_hist', type: 'integer', array: true, default: () => "'{}'" })
  runtimeHist: number[];

  @Column({ name: 'cold_pull_hist', type: 'integer', array: true, default: () => "'{}'" })
  pullHist: number[];

  @Column({ name: 'cold_container_hist', type: 'integer', array: true, default: () => "'{}'" })
  containerHist: number[];

  @Column({ name: 'cold_ready_hist', type: 'integer', array: true, default: () => "'{}'" })
  readyHist: number[];

  @Column({ name: 'queue_depth', type: 'integer', default: 0 })
  queueDepth: number;

  @Column({ name: 'oldest_age_ms', type: 'bigint', default: 0, transformer: NUMERIC_AS_NUMBER })
  oldestAgeMs: number;

  @Column({ name: 'workers_running', type: 'integer', default: 0 })
  workersRunning: number;

  @Column({ name: 'workers_idle', type: 'integer', default: 0 })
  workersIdle: number;

  @Column({ name: 'workers_initializing', type: 'integer', default: 0 })
  workersInitializing: number;

  @Column({ name: 'workers_throttled', type: 'integer', default: 0 })
  workersThrottled: number;

  @Column({ name: 'workers_unhealthy', type: 'integer', default: 0 })
  workersUnhealthy: number;

  @Column({ name: 'webhooks_delivered', type: 'integer', default: 0 })
  webhooksDelivered: number;

  @Column({ name: 'webhooks_failed', type: 'integer', default: 0 })
  webhooksFailed: number;

  @Column({ name: 'webhooks_gave_up', type: 'integer', default: 0 })
  webhooksGaveUp: number;

  /** Load-balancing requests by status class and their latency: the gateways' `job.cmd.record-lb-requests`. */
  @Column({ name: 'lb_2xx', type: 'integer', default: 0 })
  lb2xx: number;

  @Column({ name: 'lb_4xx', type: 'integer', default: 0 })
  lb4xx: number;

  @Column({ name: 'lb_5xx', type: 'integer', default: 0 })
  lb5xx: number;

  @Column({ name: 'lb_proxy_errors', type: 'integer', default: 0 })
  lbProxyErrors: number;

  @Column({ name: 'lb_latency_hist', type: 'integer', array: true, default: () => "'{}'" })
  lbLatencyHist: number[];

  /**
   * When a writer last changed the row (its transaction's start): the metrics reader keeps the rows it has read
   * and asks again only for those changed since (endpoint-metrics/rollup-cache.ts).
   */
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}
