import { describe, expect, it } from '@jest/globals';
import { drainDone, pingState } from './lb-ping.js';

describe('pingState', () => {
  it.each([
    [200, 'ready'],
    [204, 'initializing'],
    [503, 'unhealthy'],
    [500, 'unhealthy'],
    [404, 'unhealthy'],
    [201, 'unhealthy'],
    [null, 'unhealthy'],
  ])('%s → %s', (status, state) => {
    expect(pingState(status)).toBe(state);
  });
});

describe('drainDone', () => {
  it.each([
    { name: 'too early to trust a zero', elapsedMs: 100, settleMs: 1200, inFlightReported: 0, done: false },
    {
      name: 'settled and nothing in flight',
      elapsedMs: 1200,
      settleMs: 1200,
      inFlightReported: 0,
      done: true,
    },
    {
      name: 'settled but a request in flight',
      elapsedMs: 5000,
      settleMs: 1200,
      inFlightReported: 1,
      done: false,
    },
    {
      name: 'out of time with requests in flight',
      elapsedMs: 30_000,
      settleMs: 1200,
      inFlightReported: 2,
      done: true,
    },
  ])('$name', ({ elapsedMs, settleMs, inFlightReported, done }) => {
    expect(drainDone({ elapsedMs, settleMs, timeoutMs: 30_000, inFlightReported })).toBe(done);
  });
});
