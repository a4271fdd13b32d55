import { describe, expect, it } from '@jest/globals';
import { DomainError } from '@app/contracts';
import { logRange } from './log-query.js';

describe('logRange', () => {
  const now = new Date('2026-11-24T12:00:00Z');

  it('reads tail, since (RFC 3339 or seconds back) and follow', () => {
    expect(logRange({}, now)).toEqual({ follow: false });
    expect(logRange({ tail: '0', follow: 'true' }, now)).toEqual({ tail: 0, follow: true });
    expect(logRange({ since: '60' }, now).since).toEqual(new Date('2026-11-24T11:59:00Z'));
    expect(logRange({ since: '2026-11-24T13:00:00+02:00' }, now).since).toEqual(
      new Date('2026-11-24T11:00:00Z'),
    );
    expect(logRange({ follow: 'no' }, now).follow).toBe(false);
  });

  it('reports every mistake at once', () => {
    const error = (() => {
      try {
        logRange({ tail: '10001', since: 'yesterday' }, now);
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect(error).toBeInstanceOf(DomainError);
    expect(error?.errors).toHaveLength(2);
  });

  it('refuses a parameter given twice rather than picking one', () => {
    expect(() => logRange({ tail: ['1', '2'] }, now)).toThrow(DomainError);
    expect(() => logRange({ follow: ['true', 'false'] }, now)).toThrow(DomainError);
  });
});
