import type { CounterSnapshot, WindowCounter } from './rate-limit-decision.js';
import { RATE_LIMIT_WINDOWS, type PerWindow, type RateLimitWindow } from '../rate-limit-policies.js';

/** One request to count: whose, under which policy, and the windows and default quotas of that policy. */
export interface CounterHit {
  userId: string;
  policy: string;
  /** '' for per-user policies, the endpoint id for per-endpoint ones. */
  scopeKey: string;
  windowSeconds: PerWindow;
  /** The configured quotas; the user's row in `rate_limit_overrides`, if any, replaces them window by window. */
  defaultQuotas: PerWindow;
}

/** One counter as the shared store last reported it (after a hit or a flush that included it). */
export interface SharedCounter {
  /** The store's clock when it answered, Unix seconds. */
  now: number;
  windows: Readonly<Record<RateLimitWindow, WindowCounter>>;
}

/** What one flush sends for one counter: the requests admitted here since the last flush (possibly 0). */
export interface CounterIncrement {
  hit: CounterHit;
  increment: number;
}

interface LocalCounter {
  hit: CounterHit;
  shared: SharedCounter;
  /** Store clock minus this process's clock, seconds: the window arithmetic runs on the store's clock. */
  clockOffset: number;
  /** When (local ms) the statement that produced `shared` was SENT: the age of what it knows, conservatively. */
  refreshedAt: number;
  /** Admitted here, not yet sent. */
  pending: number;
  /** Admitted here, sent in the flush under way. */
  inFlight: number;
  /** Asked since the last flush began (admitted or refused): it is refreshed by the next flush. */
  touched: boolean;
}

export function counterKey(hit: Pick<CounterHit, 'userId' | 'policy' | 'scopeKey'>): string {
  return `${hit.userId}\u0000${hit.policy}\u0000${hit.scopeKey}`;
}

/**
 * The limiter's per-replica view of the shared counters (docs/adr/0012-edge-auth-cache-and-limiter.md). A
 * request is decided here, without a round trip, from the last total the store reported plus what this replica
 * admitted since; flushes send the local increments and bring back the totals, other replicas' included. A
 * counter whose total is older than `staleMs` (or unknown) is not decided here: the caller asks the store (the
 * exact, atomic statement) and `install`s the answer.
 */
export class LocalCounters {
  private readonly counters = new Map<string, LocalCounter>();

  constructor(private readonly staleMs: number) {}

  get size(): number {
    return this.counters.size;
  }

  /** Whether a request on this counter can be decided locally at `nowMs`. */
  isFresh(key: string, nowMs: number): boolean {
    const counter = this.counters.get(key);
    return counter !== undefined && nowMs - counter.refreshedAt <= this.staleMs;
  }

  /** Takes the store's answer to an exact hit (the request it counted is in `shared` already). */
  install(key: string, hit: CounterHit, shared: SharedCounter, sentAt: number, receivedAt: number): void {
    const existing = this.counters.get(key);
    const counter: LocalCounter = existing ?? {
      hit,
      shared,
      clockOffset: 0,
      refreshedAt: sentAt,
      pending: 0,
      inFlight: 0,
      touched: false,
    };
    counter.hit = hit;
    this.refresh(counter, shared, sentAt, receivedAt);
    this.counters.set(key, counter);
  }

  /**
   * Decides a request on a fresh counter: admitted if every window has room for the shared total plus what this
   * replica admitted since; an admitted request is counted here (all its `units`, as the store's statement counts
   * them) and sent with the next flush. Answers what the store would have answered (its clock, counts after this
   * request), for `decide`.
   */
  admit(key: string, nowMs: number, units = 1): CounterSnapshot {
    const counter = this.counters.get(key);
    if (!counter) throw new Error(`no local counter ${key}`);
    counter.touched = true;
    const now = nowMs / 1000 + counter.clockOffset;
    const local = counter.pending + counter.inFlight;
    const windows = {} as Record<RateLimitWindow, WindowCounter>;
    let admitted = true;
    for (const w of RATE_LIMIT_WINDOWS) {
      const length = counter.hit.windowSeconds[w];
      const start = Math.floor(now / length) * length;
      const shared = counter.shared.windows[w];
      // A window that passed since the store answered starts from 0; what was admitted here since the last flush
      // is counted in the new one (at most one flush interval's worth, on the strict side).
      const base = start > shared.start ? 0 : shared.count;
      windows[w] = { start: Math.max(start, shared.start), count: base + local, quota: shared.quota };
      if (base + local >= shared.quota) admitted = false;
    }
    if (admitted) {
      counter.pending += units;
      for (const w of RATE_LIMIT_WINDOWS) windows[w].count += units;
    }
    return { admitted, now, windows };
  }

  /**
   * Starts a flush: every counter asked since the last one, with what it admitted here (0 for one that only
   * refused: it is sent to learn the others' counts). Counters neither asked nor owing anything for `staleMs`
   * are forgotten.
   */
  beginFlush(nowMs: number): CounterIncrement[] {
    const batch: CounterIncrement[] = [];
    for (const [key, counter] of this.counters) {
      if (counter.touched || counter.pending > 0) {
        counter.inFlight += counter.pending;
        batch.push({ hit: counter.hit, increment: counter.pending });
        counter.pending = 0;
        counter.touched = false;
      } else if (counter.inFlight === 0 && nowMs - counter.refreshedAt > this.staleMs) {
        this.counters.delete(key);
      }
    }
    return batch;
  }

  /** The flush committed: its rows carry the new totals, the increments sent included. */
  endFlush(rows: Map<string, SharedCounter>, sentAt: number, receivedAt: number): void {
    for (const [key, counter] of this.counters) {
      const shared = rows.get(key);
      if (!shared) continue;
      counter.inFlight = 0;
      this.refresh(counter, shared, sentAt, receivedAt);
    }
  }

  /** The flush failed: what it carried is sent again with the next one. */
  failFlush(): void {
    for (const counter of this.counters.values()) {
      counter.pending += counter.inFlight;
      counter.inFlight = 0;
    }
  }

  private refresh(counter: LocalCounter, shared: SharedCounter, sentAt: number, receivedAt: number): void {
    // A hit sent after this flush already brought a newer total.
    if (sentAt < counter.refreshedAt) return;
    counter.shared = shared;
    // The store read its clock somewhere between send and receipt: the midpoint is the best guess.
    counter.clockOffset = shared.now - (sentAt + receivedAt) / 2000;
    counter.refreshedAt = sentAt;
  }
}
