import {
  METRICS_STEPS_S,
  observe,
  type ColdStartPhase,
  type JobChangedEvent,
  type JobQueuedEvent,
} from '@app/contracts';
import type { ColdStartPhaseTimes } from './cold-start-phases.js';

/** The rollup field of each cold start phase's histogram (its column: endpoint-rollup.entity.ts). */
export const PHASE_HISTOGRAMS = {
  placement: 'placementHist',
  runtimeStart: 'runtimeHist',
  imagePull: 'pullHist',
  containerStart: 'containerHist',
  workerReady: 'readyHist',
} as const satisfies Record<ColdStartPhase, string>;
export type PhaseHistogram = (typeof PHASE_HISTOGRAMS)[ColdStartPhase];

/** What one batch adds to one rollup row (endpoint × resolution × bucket). */
export interface RollupDelta {
  endpointId: string;
  stepS: number;
  bucketStart: Date;
  completed: number;
  failed: number;
  cancelled: number;
  timedOut: number;
  retried: number;
  delayHist: number[];
  execHist: number[];
  coldStarts: number;
  coldHist: number[];
  placementHist: number[];
  runtimeHist: number[];
  pullHist: number[];
  containerHist: number[];
  readyHist: number[];
  webhooksDelivered: number;
  webhooksFailed: number;
  webhooksGaveUp: number;
}

/** The peak gauges of one sample, for every resolution of its time. */
export interface GaugeSample {
  endpointId: string;
  queueDepth: number;
  oldestAgeMs: number;
  workersRunning: number;
  workersIdle: number;
  workersInitializing: number;
  workersThrottled: number;
  workersUnhealthy: number;
}

export function bucketStartOf(at: Date, stepS: number): Date {
  const stepMs = stepS * 1000;
  return new Date(Math.floor(at.getTime() / stepMs) * stepMs);
}

/**
 * Folds what happened (job events, worker first polls, webhook outcomes) into per-row deltas, for every
 * resolution at once; `list()` returns them ordered by key, so concurrent writers lock rows in one order.
 */
export class RollupDeltas {
  private readonly rows = new Map<string, RollupDelta>();

  get size(): number {
    return this.rows.size;
  }

  add(endpointId: string, at: Date, change: (row: RollupDelta) => void): void {
    for (const stepS of METRICS_STEPS_S) {
      const bucketStart = bucketStartOf(at, stepS);
      const key = `${endpointId}\u0000${stepS}\u0000${bucketStart.getTime()}`;
      let row = this.rows.get(key);
      if (!row) {
        row = emptyDelta(endpointId, stepS, bucketStart);
        this.rows.set(key, row);
      }
      change(row);
    }
  }

  /** A `job.evt.changed` (final statuses only; a streaming job's progress changes nothing). */
  jobChanged(event: JobChangedEvent, at: Date): void {
    const counter = FINAL_COUNTERS[event.status];
    if (!counter) return;
    const delayMs = event.timing?.delayMs ?? event.finished?.view.delayTime ?? null;
    const executionMs = event.timing?.executionMs ?? event.finished?.view.executionTime ?? null;
    this.add(event.endpointId, at, (row) => {
      row[counter] += 1;
      if (delayMs !== null && delayMs !== undefined) observe(row.delayHist, delayMs);
      if (executionMs !== null && executionMs !== undefined) observe(row.execHist, executionMs);
    });
  }

  /** A `job.evt.queued`: only a retry counts. */
  jobQueued(event: JobQueuedEvent, at: Date): void {
    if (event.retried) this.add(event.endpointId, at, (row) => (row.retried += 1));
  }

  /** A worker's first job request: its registration → first request, and each phase of its start recorded. */
  coldStart(
    endpointId: string,
    registeredAt: Date,
    firstPollAt: Date,
    phases: ColdStartPhaseTimes = {},
  ): void {
    this.add(endpointId, firstPollAt, (row) => {
      row.coldStarts += 1;
      observe(row.coldHist, Math.max(0, firstPollAt.getTime() - registeredAt.getTime()));
      for (const [phase, ms] of Object.entries(phases) as [ColdStartPhase, number][]) {
        observe(row[PHASE_HISTOGRAMS[phase]], ms);
      }
    });
  }

  webhook(endpointId: string, at: Date, outcome: 'delivered' | 'failed' | 'gaveUp'): void {
    this.add(endpointId, at, (row) => {
      if (outcome === 'delivered') row.webhooksDelivered += 1;
      else row.webhooksFailed += 1;
      if (outcome === 'gaveUp') row.webhooksGaveUp += 1;
    });
  }

  list(): RollupDelta[] {
    return [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  }
}

type Counter = 'completed' | 'failed' | 'cancelled' | 'timedOut';

const FINAL_COUNTERS: Partial<Record<JobChangedEvent['status'], Counter>> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TIMED_OUT: 'timedOut',
};

function emptyDelta(endpointId: string, stepS: number, bucketStart: Date): RollupDelta {
  return {
    endpointId,
    stepS,
    bucketStart,
    completed: 0,
    failed: 0,
    cancelled: 0,
    timedOut: 0,
    retried: 0,
    delayHist: [],
    execHist: [],
    coldStarts: 0,
    coldHist: [],
    placementHist: [],
    runtimeHist: [],
    pullHist: [],
    containerHist: [],
    readyHist: [],
    webhooksDelivered: 0,
    webhooksFailed: 0,
    webhooksGaveUp: 0,
  };
}
