import { RATE_LIMIT_WINDOWS, type PerWindow, type RateLimitWindow } from '../rate-limit-policies.js';

/** One window of a counter row as the store returned it, after this request. */
export interface WindowCounter {
  /** Window start, Unix seconds. */
  start: number;
  /** Requests admitted in the window, this one included if it was admitted. */
  count: number;
  /** The quota in force for this user (default or override). */
  quota: number;
}

/** What the store answers for one request: its verdict and the counters, with the store's clock. */
export interface CounterSnapshot {
  admitted: boolean;
  /** The store's clock when it answered, Unix seconds with a fraction (every replica reads the same clock). */
  now: number;
  windows: Readonly<Record<RateLimitWindow, WindowCounter>>;
}

/** One window as the headers report it. */
export interface WindowState {
  name: RateLimitWindow;
  /** `q`: requests per window. */
  quota: number;
  /** `w`: window length, seconds. */
  windowSeconds: number;
  /** `r`: requests left in the current window. */
  remaining: number;
  /** `t`: whole seconds until the window resets (rounded up, so waiting that long is always enough). */
  resetSeconds: number;
}

export interface RateLimitDecision {
  admitted: boolean;
  /** minute, hour, day. */
  windows: WindowState[];
  /** For a rejected request: the window that blocks longest (Retry-After), and any other full window. */
  exceeded?: { window: WindowState; alsoFull: RateLimitWindow[] };
}

/** Turns the store's answer into header values and, for a rejection, the window to name and Retry-After. */
export function decide(snapshot: CounterSnapshot, windowSeconds: PerWindow): RateLimitDecision {
  const windows = RATE_LIMIT_WINDOWS.map((name): WindowState => {
    const { start, count, quota } = snapshot.windows[name];
    const length = windowSeconds[name];
    const untilReset = Math.ceil(start + length - snapshot.now);
    return {
      name,
      quota,
      windowSeconds: length,
      remaining: Math.max(0, quota - count),
      resetSeconds: Math.min(length, Math.max(1, untilReset)),
    };
  });
  if (snapshot.admitted) return { admitted: true, windows };
  const full = windows.filter((w) => snapshot.windows[w.name].count >= w.quota);
  // The store refused, so some window was full; if none looks full any more its boundary passed while the
  // store answered: the shortest window then frees first.
  const candidates = full.length ? full : windows.slice(0, 1);
  const binding = candidates.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a));
  return {
    admitted: false,
    windows,
    exceeded: { window: binding, alsoFull: full.filter((w) => w !== binding).map((w) => w.name) },
  };
}
