import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '../errors/error-code.js';
import type { CommandOutcome } from './envelope.js';
import { isRefusalDecision, isTakeDecision, recordedDecisionOf } from './replay-feed.js';
import { Subjects } from './subjects.js';

const ok = (value: unknown): CommandOutcome => ({ ok: true, value });
const blob = { $blob: 'take-c1', bytes: 2_000_000, chunks: 2 };

describe('recordedDecisionOf', () => {
  it.each<[string, string, CommandOutcome | undefined, unknown]>([
    [
      'a take that leased jobs',
      Subjects.worker.take,
      ok({ jobs: [{ id: 'j2' }, { id: 'j1' }] }),
      ['j2', 'j1'],
    ],
    ['a take that leased nothing', Subjects.worker.take, ok({ jobs: [] }), []],
    ['a packed answer with its ids', Subjects.worker.take, ok({ ...blob, jobIds: ['j1'] }), ['j1']],
    // Recorded by a release that kept no ids beside the blob: the owner decides again.
    ['a packed answer without ids', Subjects.worker.take, ok(blob), undefined],
    ['a take never applied live', Subjects.worker.take, undefined, undefined],
    [
      'a failed take',
      Subjects.worker.take,
      { ok: false, error: { code: 'VALIDATION_FAILED', message: 'x' } },
      undefined,
    ],
    ['a take answer without job ids', Subjects.worker.take, ok({ jobs: [{ input: 1 }] }), undefined],
    ['a collect of stops', Subjects.worker.collectStops, ok({ jobsToStop: ['j1', 'j3'] }), ['j1', 'j3']],
    ['a collect of no stops', Subjects.worker.collectStops, ok({ jobsToStop: [] }), []],
    [
      'a purge',
      Subjects.job.purge,
      ok({ removed: 2, status: 'completed', jobIds: ['j1', 'j2'] }),
      ['j1', 'j2'],
    ],
    ['a purge recorded without ids', Subjects.job.purge, ok({ removed: 2, status: 'completed' }), undefined],
    ['a collect never applied live', Subjects.worker.collectStops, undefined, undefined],
    ['a submit without a take', Subjects.job.submit, ok({ id: 'j1', status: 'IN_QUEUE' }), undefined],
    [
      'a submit whose take leased jobs',
      Subjects.job.submit,
      ok({ id: 'j3', status: 'IN_QUEUE', taken: { jobs: [{ id: 'j1' }, { id: 'j3' }] } }),
      ['j1', 'j3'],
    ],
    [
      'a submit whose take leased nothing',
      Subjects.job.submit,
      ok({ id: 'j3', status: 'IN_QUEUE', taken: { jobs: [] } }),
      [],
    ],
    [
      'a submit whose take was packed',
      Subjects.job.submit,
      ok({ id: 'j3', status: 'IN_QUEUE', taken: { ...blob, jobIds: ['j3'] } }),
      ['j3'],
    ],
    ['another command', Subjects.job.cancel, ok({ id: 'j1', status: 'CANCELLED' }), undefined],
  ])('%s', (_case, subject, outcome, jobIds) => {
    expect(recordedDecisionOf(subject, outcome)).toEqual(jobIds === undefined ? undefined : { jobIds });
  });
});

describe('recordedDecisionOf, a refusal for a missing dependency', () => {
  const refused = { code: ErrorCode.DependencyUnavailable, message: 'the endpoint cannot be checked now' };

  it('is the recorded refusal, whatever the command', () => {
    const decision = recordedDecisionOf(Subjects.endpoint.save, { ok: false, error: refused });
    expect(decision).toEqual({ refused });
    expect(isRefusalDecision(decision)).toBe(true);
  });

  it('is nothing for another refusal', () => {
    const error = { code: ErrorCode.NotFound, message: 'no such pod' };
    expect(recordedDecisionOf(Subjects.pod.start, { ok: false, error })).toBeUndefined();
    expect(isRefusalDecision({ refused: error })).toBe(false);
  });
});

describe('isTakeDecision', () => {
  it('accepts job ids and refuses anything else', () => {
    expect(isTakeDecision({ jobIds: ['j1', 'j2'] })).toBe(true);
    expect(isTakeDecision({ jobIds: [] })).toBe(true);
    expect(isTakeDecision({ jobIds: ['j1', 2] })).toBe(false);
    expect(isTakeDecision({ jobIds: [''] })).toBe(false);
    expect(isTakeDecision({ jobs: ['j1'] })).toBe(false);
    expect(isTakeDecision(null)).toBe(false);
  });
});
