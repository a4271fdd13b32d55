import { Injectable } from '@nestjs/common';
import { METRICS_WINDOWS, type MetricsWindow } from '@app/contracts';
import { MetricsRepository, type RollupRow } from '../metrics.repository.js';
import { windowStart } from './metrics-series.js';

/**
 * How long before a read a writer's transaction may have started and still not have been visible to it. A row's
 * `updated_at` is its writer's transaction start, so a row committed after a read can carry a time before it; every
 * later read asks again for rows changed this long before the previous one. The writers (the fold, the gauge
 * sampler, the webhook sender) run a few statements of at most 30 s each (`statement_timeout`): five minutes is
 * well beyond them.
 */
export const WRITE_TRANSACTION_BOUND_MS = 5 * 60_000;

/**
 * Endpoints (per resolution) whose rows are kept: a week of hours is 168 rows of about a kilobyte, so at most about
 * 40 MB. The least recently read goes first.
 */
export const ROLLUP_CACHE_ENTRIES = 256;

interface Entry {
  rows: Map<number, RollupRow>;
  /** The database's clock at the read the rows are as of. */
  readAt: number;
}

/**
 * The metrics reader's copy of the rollup rows it has read, per endpoint and resolution, over the longest window of
 * that resolution (so 5m and 1h share the minutes, 24h and 7d the hours). A read asks Postgres only for the rows
 * changed since the copy's last read (less WRITE_TRANSACTION_BOUND_MS), which once an hour has closed is the
 * current step's row or two instead of 168: the week's read was most of the metrics route's time. Each broker
 * replica keeps its own copy, and every read still goes to the database, so a copy is never staler than the rows.
 */
@Injectable()
export class RollupCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly metrics: MetricsRepository) {}

  /** The window's rows (steps from its start on, oldest first), as of a read made now. */
  async window(endpointId: string, window: MetricsWindow, now: Date): Promise<RollupRow[]> {
    const { stepMs } = METRICS_WINDOWS[window];
    const stepS = stepMs / 1000;
    const key = `${endpointId}\u0000${stepS}`;
    const kept = this.entries.get(key);
    const coveredFrom = longestWindowStart(stepMs, now);
    const read = await this.metrics.readChanged(
      endpointId,
      stepS,
      coveredFrom,
      kept ? kept.readAt - WRITE_TRANSACTION_BOUND_MS : null,
    );
    // Another read of the same rows may have finished first with a later snapshot: keep the later one. A copy
    // dropped from the map meanwhile is still whole as of its read, so the changes still apply to it.
    const entry = this.entries.get(key) ?? kept ?? { rows: new Map<number, RollupRow>(), readAt: -Infinity };
    if (read.readAt >= entry.readAt) {
      for (const row of read.rows) entry.rows.set(row.bucketStart.getTime(), row);
      entry.readAt = read.readAt;
    }
    for (const at of entry.rows.keys()) if (at < coveredFrom.getTime()) entry.rows.delete(at);
    this.remember(key, entry);

    const from = windowStart(window, now).getTime();
    return [...entry.rows.entries()]
      .filter(([at]) => at >= from)
      .sort(([a], [b]) => a - b)
      .map(([, row]) => row);
  }

  /** Stores the entry as the most recently used, dropping the least recently used beyond the bound. */
  private remember(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > ROLLUP_CACHE_ENTRIES) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
  }
}

/** The first step of the longest window of this resolution. */
function longestWindowStart(stepMs: number, now: Date): Date {
  const windows = (Object.keys(METRICS_WINDOWS) as MetricsWindow[]).filter(
    (name) => METRICS_WINDOWS[name].stepMs === stepMs,
  );
  const longest = windows.reduce((a, b) => (METRICS_WINDOWS[a].spanMs >= METRICS_WINDOWS[b].spanMs ? a : b));
  return windowStart(longest, now);
}
