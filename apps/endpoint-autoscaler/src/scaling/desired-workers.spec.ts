import { describe, expect, it } from '@jest/globals';
import { desiredWorkers, type ScalingInputs } from './desired-workers.js';

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RUNS = 5000;

function randomInputs(next: () => number): ScalingInputs {
  const int = (max: number) => Math.floor(next() * (max + 1));
  const workersMin = int(5);
  const workersMax = workersMin + int(10);
  const current = int(15);
  const inQueue = int(next() < 0.3 ? 0 : 60);
  return {
    scalerType: next() < 0.5 ? 'QUEUE_DELAY' : 'REQUEST_COUNT',
    scalerValue: 1 + int(10),
    workersMin,
    workersMax,
    current,
    starting: int(current),
    inQueue,
    inProgress: int(30),
    oldestQueuedMs: inQueue === 0 ? null : int(20_000),
  };
}

function forAll(property: (input: ScalingInputs, next: () => number) => void): void {
  for (let seed = 1; seed <= RUNS; seed++) {
    const next = prng(seed);
    const input = randomInputs(next);
    try {
      property(input, next);
    } catch (error) {
      throw new Error(`seed ${seed}, inputs ${JSON.stringify(input)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

describe('desiredWorkers (property tests over random inputs)', () => {
  it('always stays within workersMin..workersMax and gives a reason', () => {
    forAll((input) => {
      const { desired, reason } = desiredWorkers(input);
      expect(Number.isInteger(desired)).toBe(true);
      expect(desired).toBeGreaterThanOrEqual(input.workersMin);
      expect(desired).toBeLessThanOrEqual(input.workersMax);
      expect(reason.length).toBeGreaterThan(0);
    });
  });

  it('is monotone: more queued jobs never mean fewer workers', () => {
    forAll((input, next) => {
      const more = { ...input, inQueue: input.inQueue + 1 + Math.floor(next() * 20) };
      if (more.oldestQueuedMs === null) more.oldestQueuedMs = 0;
      expect(desiredWorkers(more).desired).toBeGreaterThanOrEqual(desiredWorkers(input).desired);
    });
  });

  it('is monotone: more jobs in progress never mean fewer workers', () => {
    forAll((input, next) => {
      const more = { ...input, inProgress: input.inProgress + 1 + Math.floor(next() * 20) };
      expect(desiredWorkers(more).desired).toBeGreaterThanOrEqual(desiredWorkers(input).desired);
    });
  });

  it('is monotone: a longer wait of the oldest job never means fewer workers', () => {
    forAll((input, next) => {
      if (input.oldestQueuedMs === null) return;
      const older = { ...input, oldestQueuedMs: input.oldestQueuedMs + Math.floor(next() * 20_000) };
      expect(desiredWorkers(older).desired).toBeGreaterThanOrEqual(desiredWorkers(input).desired);
    });
  });

  it('is monotone in the bounds: raising workersMin or workersMax never means fewer workers', () => {
    forAll((input, next) => {
      const raise = 1 + Math.floor(next() * 5);
      const higherMax = { ...input, workersMax: input.workersMax + raise };
      const higherMin = { ...input, workersMin: Math.min(input.workersMin + raise, input.workersMax) };
      expect(desiredWorkers(higherMax).desired).toBeGreaterThanOrEqual(desiredWorkers(input).desired);
      expect(desiredWorkers(higherMin).desired).toBeGreaterThanOrEqual(desiredWorkers(input).desired);
    });
  });

  it('REQUEST_COUNT is ceil((inQueue + inProgress) / scalerValue), clamped', () => {
    forAll((input) => {
      const request = { ...input, scalerType: 'REQUEST_COUNT' as const };
      const raw = Math.ceil((request.inQueue + request.inProgress) / request.scalerValue);
      const expected = Math.min(request.workersMax, Math.max(request.workersMin, raw));
      const fromZero = request.current === 0 && request.inQueue > 0 ? Math.min(request.workersMax, 1) : 0;
      expect(desiredWorkers(request).desired).toBe(Math.max(expected, fromZero));
    });
  });

  it('QUEUE_DELAY adds workers only while the oldest job waited longer than scalerValue', () => {
    forAll((input) => {
      const delay = { ...input, scalerType: 'QUEUE_DELAY' as const };
      const { desired } = desiredWorkers(delay);
      const exceeded = delay.oldestQueuedMs !== null && delay.oldestQueuedMs > delay.scalerValue * 1000;
      const fromZero = delay.current === 0 && delay.inQueue > 0;
      if (!exceeded && !fromZero) {
        expect(desired).toBeLessThanOrEqual(Math.max(delay.current, delay.workersMin));
      }
      if (exceeded && delay.inQueue > delay.starting && delay.current < delay.workersMax) {
        expect(desired).toBeGreaterThan(Math.min(delay.current, delay.workersMax) - 1);
        expect(desired).toBeGreaterThanOrEqual(Math.min(delay.workersMax, delay.current + 1));
      }
    });
  });

  it('scales from zero: a queued job with no worker asks for one (unless workersMax is 0)', () => {
    forAll((input) => {
      const idle = {
        ...input,
        current: 0,
        starting: 0,
        inQueue: Math.max(1, input.inQueue),
        oldestQueuedMs: 0,
      };
      expect(desiredWorkers(idle).desired).toBe(
        idle.workersMax === 0 ? 0 : Math.max(1, desiredWorkers(idle).desired),
      );
      expect(desiredWorkers(idle).desired).toBeGreaterThanOrEqual(Math.min(1, idle.workersMax));
    });
  });

  it('scales to workersMin when there is no work (workersMin 0 scales to zero)', () => {
    forAll((input) => {
      const none = { ...input, inQueue: 0, inProgress: 0, oldestQueuedMs: null };
      expect(desiredWorkers(none).desired).toBe(input.workersMin);
    });
  });

  it('lowPriority jobs are not inputs: only counted jobs change the answer', () => {
    const base: ScalingInputs = {
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      workersMin: 0,
      workersMax: 5,
      current: 0,
      starting: 0,
      inQueue: 0,
      inProgress: 0,
      oldestQueuedMs: null,
    };
    expect(desiredWorkers(base)).toEqual({ desired: 0, reason: expect.any(String) });
  });

  it('explains its decisions', () => {
    const input: ScalingInputs = {
      scalerType: 'QUEUE_DELAY',
      scalerValue: 2,
      workersMin: 0,
      workersMax: 3,
      current: 2,
      starting: 0,
      inQueue: 5,
      inProgress: 2,
      oldestQueuedMs: 4500,
    };
    expect(desiredWorkers(input)).toEqual({
      desired: 3,
      reason:
        'QUEUE_DELAY: oldest queued job waited 4.5 s > 2 s; 5 queued, 0 worker(s) starting; capped at workersMax 3',
    });
  });
});
