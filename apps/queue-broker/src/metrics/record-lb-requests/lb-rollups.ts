import {
  METRICS_STEPS_S,
  mergeHistograms,
  type LbRequestTally,
  type LbWorkerGauge,
  type RecordLbRequestsCommand,
} from '@app/contracts';
import { bucketStartOf } from '../rollup-deltas.js';

/**
 * What one `job.cmd.record-lb-requests` does to one rollup row (endpoint × resolution × bucket): counters and the
 * latency histogram to add, worker gauges to raise.
 */
export interface LbRollupDelta {
  endpointId: string;
  stepS: number;
  bucketStart: Date;
  lb2xx: number;
  lb4xx: number;
  lb5xx: number;
  lbProxyErrors: number;
  lbLatencyHist: number[];
  workersRunning: number;
  workersIdle: number;
  workersInitializing: number;
  workersUnhealthy: number;
}

/**
 * A gateway's counts as rows of every resolution: each tally lands in the bucket of its minute (when its requests
 * ended), the worker gauges in the bucket of the command's time `at`. Pure: the payload and the command's time
 * decide the rows, so a redelivery or a replay writes the same. Ordered by the key the metrics leader sorts its
 * deltas by (rollup-deltas.ts), so the two writers lock shared rows in one order.
 */
export function lbRollupDeltas(command: RecordLbRequestsCommand, at: Date): LbRollupDelta[] {
  const rows = new Map<string, LbRollupDelta>();
  const rowOf = (endpointId: string, when: Date, stepS: number): LbRollupDelta => {
    const bucketStart = bucketStartOf(when, stepS);
    const key = `${endpointId}\u0000${stepS}\u0000${bucketStart.getTime()}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = emptyDelta(endpointId, stepS, bucketStart)));
    return row;
  };
  for (const tally of command.requests) {
    for (const stepS of METRICS_STEPS_S) {
      addTally(rowOf(tally.endpointId, new Date(tally.minute), stepS), tally);
    }
  }
  for (const gauge of command.workers) {
    for (const stepS of METRICS_STEPS_S) raiseGauge(rowOf(gauge.endpointId, at, stepS), gauge);
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

function addTally(row: LbRollupDelta, tally: LbRequestTally): void {
  row.lb2xx += tally.status2xx;
  row.lb4xx += tally.status4xx;
  row.lb5xx += tally.status5xx;
  row.lbProxyErrors += tally.proxyErrors;
  row.lbLatencyHist = mergeHistograms([row.lbLatencyHist, tally.latencyHist]);
}

function raiseGauge(row: LbRollupDelta, gauge: LbWorkerGauge): void {
  row.workersRunning = Math.max(row.workersRunning, gauge.running);
  row.workersIdle = Math.max(row.workersIdle, gauge.idle);
  row.workersInitializing = Math.max(row.workersInitializing, gauge.initializing);
  row.workersUnhealthy = Math.max(row.workersUnhealthy, gauge.unhealthy);
}

function emptyDelta(endpointId: string, stepS: number, bucketStart: Date): LbRollupDelta {
  return {
    endpointId,
    stepS,
    bucketStart,
    lb2xx: 0,
    lb4xx: 0,
    lb5xx: 0,
    lbProxyErrors: 0,
    lbLatencyHist: [],
    workersRunning: 0,
    workersIdle: 0,
    workersInitializing: 0,
    workersUnhealthy: 0,
  };
}
