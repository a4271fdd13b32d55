import { Injectable } from '@nestjs/common';
import { JobSignals } from '../jobs/job-signals.js';

/** A take recorded this recently already told the broker the worker is alive and polling. */
const TAKE_FRESH_MS = 5000;
/** Bound on the endpoints and workers remembered (forgotten wholesale beyond it: the cost is one take each). */
const MAX_KEYS = 50_000;

/**
 * Lets a job-take long poll skip its opening take when it would certainly come back empty: a take of this gateway
 * left the endpoint's queue empty (it leased fewer jobs than it asked for, none included) and no job was queued
 * since (every transition into IN_QUEUE emits job.evt.queued, whose hint arrives right after the commit), and the
 * worker's own take was recorded moments ago (a take is also how the broker learns that the worker polls). The poll
 * then simply waits for the queued signal, or its recheck; a busy worker loop no longer costs an empty take command
 * per job.
 *
 * A take that started before a job was queued can answer empty after that job's signal arrived: each take
 * remembers the endpoint's queued-event count when it started, and finds the queue empty only if none came since.
 */
@Injectable()
export class EmptyQueues {
  private readonly queuedEvents = new Map<string, number>();
  private readonly emptyAsOf = new Map<string, number>();
  private readonly lastTake = new Map<string, number>();

  constructor(signals: JobSignals) {
    signals.onQueued((endpointId) => {
      bounded(this.queuedEvents);
      this.queuedEvents.set(endpointId, this.mark(endpointId) + 1);
      this.emptyAsOf.delete(endpointId);
    });
  }

  /** The endpoint's queued-event count: take it before asking, hand it to `tookNone`. */
  mark(endpointId: string): number {
    return this.queuedEvents.get(endpointId) ?? 0;
  }

  /** A take of the worker was recorded; it left the queue empty if `empty` (asked when the count was `mark`). */
  took(endpointId: string, workerId: string, mark: number, empty: boolean): void {
    bounded(this.lastTake);
    this.lastTake.set(workerId, Date.now());
    if (empty && this.mark(endpointId) === mark) {
      bounded(this.emptyAsOf);
      this.emptyAsOf.set(endpointId, mark);
    }
  }

  maySkipTake(endpointId: string, workerId: string): boolean {
    const asOf = this.emptyAsOf.get(endpointId);
    const took = this.lastTake.get(workerId);
    return (
      asOf !== undefined &&
      asOf === this.mark(endpointId) &&
      took !== undefined &&
      Date.now() - took < TAKE_FRESH_MS
    );
  }
}

function bounded(map: Map<string, number>): void {
  if (map.size >= MAX_KEYS) map.clear();
}
