import { describe, expect, it } from '@jest/globals';
import { workerCallTime } from './job.rules.js';

describe('workerCallTime', () => {
  const now = new Date('2026-11-21T10:00:30.000Z');

  it("is the long poll's request time: repeats on the worker's behalf do not prove it alive", () => {
    expect(workerCallTime('2026-11-21T10:00:00.000Z', now)).toEqual(new Date('2026-11-21T10:00:00.000Z'));
  });

  it("is the command's own time for a direct call, or a request time that is missing, unreadable or ahead", () => {
    expect(workerCallTime(undefined, now)).toBe(now);
    expect(workerCallTime('not a time', now)).toBe(now);
    expect(workerCallTime('2026-11-21T10:01:00.000Z', now)).toBe(now);
  });
});
