import { describe, expect, it } from '@jest/globals';
import { JobLimits, jobIdFor, retentionFor } from '@app/contracts';
import { JobEntity } from './job.entity.js';
import {
  assertCancellable,
  assertRetryable,
  finishedExpiry,
  splitChunk,
  splitString,
  toJobView,
} from './job.rules.js';

function job(overrides: Partial<JobEntity>): JobEntity {
  return Object.assign(new JobEntity(), {
    id: 'j1',
    status: 'IN_QUEUE',
    hasOutput: false,
    output: null,
    error: null,
    delayTimeMs: null,
    executionTimeMs: null,
    lastWorkerId: null,
    retries: 0,
    ttlMs: null,
    retentionMs: 1000,
    expiresAt: new Date(0),
    startedAt: null,
    ...overrides,
  });
}

function code(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('job rules', () => {
  it.each([
    ['IN_QUEUE', undefined],
    ['IN_PROGRESS', undefined],
    ['COMPLETED', 'INVALID_STATE'],
    ['FAILED', 'INVALID_STATE'],
    ['CANCELLED', 'INVALID_STATE'],
    ['TIMED_OUT', 'INVALID_STATE'],
  ] as const)('cancel of a %s job: %s', (status, expected) => {
    expect(code(() => assertCancellable(job({ status })))).toBe(expected);
  });

  it.each([
    ['FAILED', undefined],
    ['TIMED_OUT', undefined],
    ['COMPLETED', 'INVALID_STATE'],
    ['CANCELLED', 'INVALID_STATE'],
    ['IN_QUEUE', 'INVALID_STATE'],
    ['IN_PROGRESS', 'INVALID_STATE'],
  ] as const)('retry of a %s job: %s', (status, expected) => {
    expect(code(() => assertRetryable(job({ status })))).toBe(expected);
  });

  it('names the status when it refuses', () => {
    expect(() => assertRetryable(job({ status: 'COMPLETED' }))).toThrow(/COMPLETED/);
  });

  it('keeps results for the retention of their kind, or to the ttl', () => {
    const now = new Date(10_000);
    expect(finishedExpiry(job({ retentionMs: 500 }), now)).toEqual(new Date(10_500));
    expect(finishedExpiry(job({ ttlMs: 20_000, expiresAt: new Date(30_000) }), now)).toEqual(
      new Date(30_000),
    );
    expect(retentionFor(false, undefined)).toBe(JobLimits.runRetentionMs);
    expect(retentionFor(true, 1000)).toBe(60_000);
    expect(retentionFor(true, 200_000)).toBe(200_000);
    expect(retentionFor(true, 300_000)).toBe(300_000);
  });

  it('derives UUID-like ids from the command, sync- for /runsync', () => {
    expect(jobIdFor('c1', false)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(jobIdFor('c1', false)).toBe(jobIdFor('c1', false));
    expect(jobIdFor('c1', true)).toBe(`sync-${jobIdFor('c1', false)}`);
  });

  it('shows output only when there is one, and the running time of a running job', () => {
    expect(toJobView(job({}), new Date())).toEqual({ id: 'j1', status: 'IN_QUEUE' });
    expect(toJobView(job({ hasOutput: true, output: null, status: 'COMPLETED' }), new Date())).toEqual({
      id: 'j1',
      status: 'COMPLETED',
      output: null,
    });
    const running = toJobView(job({ status: 'IN_PROGRESS', startedAt: new Date(1000) }), new Date(3000));
    expect(running.executionTime).toBe(2000);
  });

  it('splits stream output into chunks of at most 1 MB', () => {
    const max = 100;
    expect(splitChunk('small', max)).toEqual([{ output: 'small' }]);
    const pieces = splitChunk('é'.repeat(300), max);
    expect(pieces.map((p) => p.output).join('')).toBe('é'.repeat(300));
    for (const p of pieces) expect(Buffer.byteLength(JSON.stringify(p.output))).toBeLessThanOrEqual(max);
    const array = splitChunk(
      Array.from({ length: 50 }, (_, i) => i),
      max,
    );
    expect(array.flatMap((p) => p.output as number[])).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(splitString('abc', 1)).toEqual(['a', 'b', 'c']);
  });
});
