import { describe, expect, it } from '@jest/globals';
import { histogramCount, summarize } from '@app/contracts';
import { LbRequestTallies, lbWorkerGauge, statusClassOf } from './lb-request-tally.js';

describe('statusClassOf', () => {
  it.each([
    [{ status: 200 }, 'status2xx'],
    [{ status: 101 }, 'status2xx'],
    [{ status: 304 }, 'status2xx'],
    [{ status: 399 }, 'status2xx'],
    [{ status: 400 }, 'status4xx'],
    [{ status: 499 }, 'status4xx'],
    [{ status: 500 }, 'status5xx'],
    [{ status: 503 }, 'status5xx'],
    ['proxy-error', 'proxyErrors'],
  ] as const)('%j counts as %s', (outcome, expected) => {
    expect(statusClassOf(outcome)).toBe(expected);
  });
});

describe('LbRequestTallies', () => {
  const at = (iso: string) => Date.parse(iso);

  it('counts per endpoint and minute of the end, by status class, with the latencies', () => {
    const tallies = new LbRequestTallies();
    tallies.count('ep1', { status: 200 }, 10, at('2026-12-01T10:00:05Z'));
    tallies.count('ep1', { status: 201 }, 20, at('2026-12-01T10:00:59.999Z'));
    tallies.count('ep1', { status: 404 }, 5, at('2026-12-01T10:00:30Z'));
    tallies.count('ep1', { status: 500 }, 1000, at('2026-12-01T10:01:00Z'));
    tallies.count('ep1', 'proxy-error', 60_000, at('2026-12-01T10:01:10Z'));
    tallies.count('ep2', { status: 200 }, -3, at('2026-12-01T10:00:00Z'));
    expect(tallies.size).toBe(3);
    const drained = tallies.drain();
    expect(drained.map(({ latencyHist: _h, ...t }) => t)).toEqual([
      {
        endpointId: 'ep1',
        minute: '2026-12-01T10:00:00.000Z',
        status2xx: 2,
        status4xx: 1,
        status5xx: 0,
        proxyErrors: 0,
      },
      {
        endpointId: 'ep1',
        minute: '2026-12-01T10:01:00.000Z',
        status2xx: 0,
        status4xx: 0,
        status5xx: 1,
        proxyErrors: 1,
      },
      {
        endpointId: 'ep2',
        minute: '2026-12-01T10:00:00.000Z',
        status2xx: 1,
        status4xx: 0,
        status5xx: 0,
        proxyErrors: 0,
      },
    ]);
    expect(histogramCount(drained[0].latencyHist)).toBe(3);
    const { p50, p99 } = summarize(drained[0].latencyHist);
    // Within one bucket (19 %) of the exact nearest-rank values, 10 and 20 ms.
    expect(p50).toBeGreaterThan(10 / 1.19);
    expect(p50).toBeLessThanOrEqual(10 * 1.19);
    expect(p99).toBeGreaterThan(20 / 1.19);
    expect(p99).toBeLessThanOrEqual(20 * 1.19);
    // A negative time (a clock step) counts as 0 ms.
    expect(summarize(drained[2].latencyHist).p50).toBeLessThanOrEqual(1);
    expect(tallies.size).toBe(0);
    expect(tallies.drain()).toEqual([]);
  });
});

describe('lbWorkerGauge', () => {
  it('counts ready workers with a request in flight as running, the others by their /ping state', () => {
    const gauge = lbWorkerGauge(
      'ep',
      new Map([
        ['a', 'ready'],
        ['b', 'ready'],
        ['c', 'initializing'],
        ['d', 'unhealthy'],
        ['e', 'draining'],
      ] as const),
      new Map([
        ['a', 3],
        ['d', 1],
        ['other', 1],
      ]),
    );
    expect(gauge).toEqual({ endpointId: 'ep', running: 1, idle: 1, initializing: 1, unhealthy: 2 });
  });
});
