import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode } from '@app/contracts';
import { decodeCursor, encodeCursor, jobListQuery } from './job-list-query.js';

function refusal(params: Record<string, unknown>): { code: string; errors: unknown } {
  try {
    jobListQuery('ep', params);
  } catch (error) {
    const e = error as DomainError;
    return { code: e.code, errors: e.errors };
  }
  throw new Error('accepted');
}

describe('jobListQuery', () => {
  it('defaults to 20 rows, no filter', () => {
    expect(jobListQuery('ep', {})).toEqual({ endpointId: 'ep', limit: 20 });
  });

  it('takes statuses comma-separated or repeated, in any case, once each', () => {
    expect(jobListQuery('ep', { status: ['failed,TIMED_OUT', 'FAILED'] }).statuses).toEqual([
      'FAILED',
      'TIMED_OUT',
    ]);
  });

  it('takes ISO times (normalised to UTC), a limit and a cursor it made', () => {
    const next = encodeCursor({ createdAt: '2026-03-01T12:00:00.000Z', id: 'job-1' })!;
    expect(
      jobListQuery('ep', { from: '2026-03-01T13:00:00+01:00', to: '2026-03-02', limit: '100', cursor: next }),
    ).toEqual({
      endpointId: 'ep',
      from: '2026-03-01T12:00:00.000Z',
      to: '2026-03-02T00:00:00.000Z',
      limit: 100,
      after: { createdAt: '2026-03-01T12:00:00.000Z', id: 'job-1' },
    });
  });

  it('names every bad parameter at once (422)', () => {
    expect(refusal({ status: 'DONE', from: '1700000000', to: ['a', 'b'], limit: '0', cursor: 'x' })).toEqual({
      code: ErrorCode.ValidationFailed,
      errors: [
        'status must be one or more of IN_QUEUE, IN_PROGRESS, COMPLETED, FAILED, CANCELLED, TIMED_OUT; got "DONE"',
        'to must be given at most once',
        'from must be an ISO 8601 time (e.g. 2026-03-01T12:00:00Z); got "1700000000"',
        'limit must be an integer from 1 to 100; got "0"',
        'cursor is not the `next` of a page of this list',
      ],
    });
    expect(refusal({ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' }).errors).toEqual([
      'from must be earlier than to',
    ]);
  });

  it('refuses a cursor whose time is not one it could have made', () => {
    expect(decodeCursor(Buffer.from('["2026-03-01", "job"]').toString('base64url'))).toBeNull();
    expect(decodeCursor(Buffer.from('{"a":1}').toString('base64url'))).toBeNull();
  });
});
