import { describe, expect, it } from '@jest/globals';
import { decide, type CounterSnapshot } from './rate-limit-decision.js';

const WINDOWS = { minute: 60, hour: 3600, day: 86400 };
/** 2026-11-21T10:20:30.250Z */
const NOW = Date.UTC(2026, 10, 21, 10, 20, 30, 250) / 1000;
const starts = { minute: NOW - 30.25, hour: NOW - 1230.25, day: NOW - 37230.25 };

function snapshot(
  admitted: boolean,
  counts: [number, number, number],
  quotas: [number, number, number],
): CounterSnapshot {
  return {
    admitted,
    now: NOW,
    windows: {
      minute: { start: starts.minute, count: counts[0], quota: quotas[0] },
      hour: { start: starts.hour, count: counts[1], quota: quotas[1] },
      day: { start: starts.day, count: counts[2], quota: quotas[2] },
    },
  };
}

describe('decide', () => {
  it('reports remaining requests and whole seconds to reset, rounded up, per window', () => {
    const decision = decide(snapshot(true, [3, 40, 500], [10, 100, 1000]), WINDOWS);
    expect(decision.admitted).toBe(true);
    expect(decision.exceeded).toBeUndefined();
    expect(decision.windows).toEqual([
      { name: 'minute', quota: 10, windowSeconds: 60, remaining: 7, resetSeconds: 30 },
      { name: 'hour', quota: 100, windowSeconds: 3600, remaining: 60, resetSeconds: 2370 },
      { name: 'day', quota: 1000, windowSeconds: 86400, remaining: 500, resetSeconds: 49170 },
    ]);
  });

  it('names the full window of a refused request with its seconds to reset', () => {
    const decision = decide(snapshot(false, [4, 10, 12], [10, 10, 1000]), WINDOWS);
    expect(decision.admitted).toBe(false);
    expect(decision.exceeded?.window).toMatchObject({ name: 'hour', remaining: 0, resetSeconds: 2370 });
    expect(decision.exceeded?.alsoFull).toEqual([]);
  });

  it('names the window that blocks longest when several are full', () => {
    const decision = decide(snapshot(false, [10, 20, 1000], [10, 100, 1000]), WINDOWS);
    expect(decision.exceeded?.window.name).toBe('day');
    expect(decision.exceeded?.alsoFull).toEqual(['minute']);
  });

  it('keeps t between 1 and the window length at the edges of a window', () => {
    const atEnd: CounterSnapshot = {
      admitted: true,
      now: 1000.9999,
      windows: {
        minute: { start: 940, count: 1, quota: 5 },
        hour: { start: 1001, count: 1, quota: 5 },
        day: { start: 0, count: 1, quota: 5 },
      },
    };
    const [minute, hour] = decide(atEnd, WINDOWS).windows;
    expect(minute.resetSeconds).toBe(1);
    expect(hour.resetSeconds).toBe(3600);
  });

  it('never reports negative remaining requests', () => {
    const decision = decide(snapshot(false, [12, 12, 12], [10, 100, 1000]), WINDOWS);
    expect(decision.windows[0].remaining).toBe(0);
  });

  it('falls back to the minute window when a refusal raced a window boundary', () => {
    const decision = decide(snapshot(false, [1, 1, 1], [10, 100, 1000]), WINDOWS);
    expect(decision.exceeded?.window.name).toBe('minute');
  });
});
