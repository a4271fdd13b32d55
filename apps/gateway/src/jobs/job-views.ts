import { Inject, Injectable } from '@nestjs/common';
import { Subjects, isTerminalJobStatus, type Actor, type JobView } from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { GatewayPayloads } from './gateway-payloads.js';
import { JobSignals } from './job-signals.js';
import { JobsEdgeConfig } from './jobs-edge.config.js';

interface Entry {
  endpointId: string;
  view: JobView;
  /** Until when (epoch ms) the entry may be served: the job's own expiry, at most JOB_VIEW_CACHE_MS from now. */
  until: number;
  bytes: number;
  /** When (epoch ms) the entry last moved to the recent end of the map. */
  movedAt: number;
}

/** Recency is kept to this granularity (ms): eviction order is least recently read, give or take a second. */
const MOVE_AFTER_MS = 1000;

/**
 * The gateway's read model of jobs for GET /status and the sync waits. A finished job's view changes only when it
 * is retried (job.evt.queued) or read with ?ttl= (which goes through JobsService and drops the entry), and it
 * disappears at its expiry: so finished views are kept here, bounded in bytes, and served without a bus hop until
 * the job expires or an event about it arrives (the broker's post-commit hint, or the relayed event if the hint was
 * lost; JOB_VIEW_CACHE_MS bounds how long a view can stay stale if both were lost). A small finished view comes in
 * the job.evt.changed event itself, so a /runsync answers without asking. Unfinished jobs are read from the broker
 * every time: their views change with every lease and result.
 */
@Injectable()
export class JobViews {
  /** Insertion order is recency: a hit moves its entry to the end (MOVE_AFTER_MS); the oldest are evicted first. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly queries: QueryBus,
    private readonly payloads: GatewayPayloads,
    signals: JobSignals,
    @Inject(JobsEdgeConfig) private readonly config: JobsEdgeConfig,
  ) {
    signals.onJobEvent((jobId, changed) => {
      // A finished job's event carries its view when small: the waiters it wakes read it from here.
      if (changed?.finished && isTerminalJobStatus(changed.finished.view.status)) {
        this.keep(changed.endpointId, changed.finished.view, Date.parse(changed.finished.expiresAt));
      } else this.forget(jobId);
    });
  }

  /** The job's view; 404 (from the broker) for an unknown, expired or other endpoint's job. */
  async get(endpointId: string, jobId: string, actor: Actor): Promise<JobView> {
    const cached = this.cached(endpointId, jobId);
    if (cached) return cached;
    const read = await this.payloads.take(
      await this.queries.query(Subjects.job.get, { endpointId, jobId }, actor),
    );
    if (isTerminalJobStatus(read.view.status)) this.keep(endpointId, read.view, Date.parse(read.expiresAt));
    return read.view;
  }

  /** The kept view of a finished job; undefined when not kept. */
  private cached(endpointId: string, jobId: string): JobView | undefined {
    const hit = this.entries.get(jobId);
    if (!hit) return undefined;
    const now = Date.now();
    if (hit.endpointId !== endpointId || hit.until <= now) {
      this.forget(jobId);
      return undefined;
    }
    // Moved to the recent end at most once a second: a job polled in a tight loop is not re-inserted each time.
    if (now - hit.movedAt >= MOVE_AFTER_MS) {
      this.entries.delete(jobId);
      this.entries.set(jobId, hit);
      hit.movedAt = now;
    }
    return hit.view;
  }

  forget(jobId: string): void {
    const entry = this.entries.get(jobId);
    if (!entry) return;
    this.entries.delete(jobId);
    this.bytes -= entry.bytes;
  }

  private keep(endpointId: string, view: JobView, expiresAt: number): void {
    const budget = this.config.JOB_VIEW_CACHE_BYTES;
    if (budget === 0 || this.config.JOB_VIEW_CACHE_MS === 0) return;
    // What the view costs to hold, roughly: its JSON text (two bytes a character) and a fixed overhead.
    const bytes = 2 * JSON.stringify(view).length + 256;
    if (bytes > budget / 16) return; // one huge output must not evict everything else
    this.forget(view.id);
    const now = Date.now();
    this.entries.set(view.id, {
      endpointId,
      view,
      until: Math.min(expiresAt, now + this.config.JOB_VIEW_CACHE_MS),
      bytes,
      movedAt: now,
    });
    this.bytes += bytes;
    for (const [id] of this.entries) {
      if (this.bytes <= budget) break;
      this.forget(id);
    }
  }
}
