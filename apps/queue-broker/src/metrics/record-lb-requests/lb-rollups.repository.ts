import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { LbRollupDelta } from './lb-rollups.js';

const ADDITIVE = ['lb_2xx', 'lb_4xx', 'lb_5xx', 'lb_proxy_errors'] as const;
const GAUGES = ['workers_running', 'workers_idle', 'workers_initializing', 'workers_unhealthy'] as const;

/** Rows per statement: 12 parameters each. */
const CHUNK = 1000;

/** The load-balancing columns of the endpoint metrics rollups (docs/adr/0026, "Request metrics"). */
@Injectable()
export class LbRollupsRepository {
  /** Adds the counters and histograms, raises the worker gauges, in the command's transaction. */
  async add(rows: LbRollupDelta[], manager: EntityManager): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) await this.upsert(rows.slice(i, i + CHUNK), manager);
  }

  private async upsert(rows: LbRollupDelta[], manager: EntityManager): Promise<void> {
    const params: unknown[] = [];
    const tuples = rows.map((r) => {
      const values: unknown[] = [
        r.endpointId,
        r.stepS,
        r.bucketStart,
        r.lb2xx,
        r.lb4xx,
        r.lb5xx,
        r.lbProxyErrors,
      ];
      values.push(
        r.workersRunning,
        r.workersIdle,
        r.workersInitializing,
        r.workersUnhealthy,
        r.lbLatencyHist,
      );
      const base = params.length;
      params.push(...values);
      const cast = (k: number) => (k === 2 ? '::timestamptz' : k === 11 ? '::int[]' : '');
      return `(${values.map((_, k) => `$${base + k + 1}${cast(k)}`).join(', ')})`;
    });
    // updated_at: the transaction's start, as every writer sets it (the reader's copy asks for rows changed since).
    await manager.query(
      `INSERT INTO queue_broker.endpoint_metric_rollups AS r (endpoint_id, step_s, bucket_start,
       ${ADDITIVE.join(', ')}, ${GAUGES.join(', ')}, lb_latency_hist)
     VALUES ${tuples.join(', ')}
     ON CONFLICT (endpoint_id, step_s, bucket_start) DO UPDATE SET
       ${ADDITIVE.map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')},
       ${GAUGES.map((c) => `${c} = GREATEST(r.${c}, EXCLUDED.${c})`).join(', ')},
       lb_latency_hist = queue_broker.metrics_hist_add(r.lb_latency_hist, EXCLUDED.lb_latency_hist),
       updated_at = now()`,
      params,
    );
  }
}
