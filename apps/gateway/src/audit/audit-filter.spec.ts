import { describe, expect, it } from '@jest/globals';
import { DomainError } from '@app/contracts';
import { encodeCursor, parseAuditQuery } from './audit-filter.js';

function errorsOf(query: Record<string, unknown>): string[] {
  try {
    parseAuditQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).errors ?? [];
  }
  throw new Error('expected a refusal');
}

describe('parseAuditQuery', () => {
  it('reads every filter and defaults the limit to 50', () => {
    const cursor = encodeCursor({ at: new Date('2026-12-01T10:00:00.000Z'), id: 'aud_1' });
    expect(
      parseAuditQuery({
        from: '2026-12-01T00:00:00Z',
        to: '2026-12-02T00:00:00Z',
        actor: 'u-1',
        action: 'pod.create',
        resourceType: 'pod',
        resourceId: 'pod-1',
        cursor,
      }),
    ).toEqual({
      from: new Date('2026-12-01T00:00:00Z'),
      to: new Date('2026-12-02T00:00:00Z'),
      actor: 'u-1',
      action: 'pod.create',
      resourceType: 'pod',
      resourceId: 'pod-1',
      after: { at: new Date('2026-12-01T10:00:00.000Z'), id: 'aud_1' },
      limit: 50,
    });
    expect(parseAuditQuery({})).toEqual({ limit: 50 });
    expect(parseAuditQuery({ limit: '500', accountId: 'u-2' })).toEqual({ limit: 500, accountId: 'u-2' });
  });

  it('names each bad filter', () => {
    expect(errorsOf({ from: 'yesterday' })).toEqual([
      'from must be an RFC 3339 time such as 2026-01-01T00:00:00Z',
    ]);
    expect(errorsOf({ from: '2026-12-02T00:00:00Z', to: '2026-12-01T00:00:00Z' })).toEqual([
      'from must not be after to',
    ]);
    expect(errorsOf({ action: 'pod.explode' })[0]).toMatch(/^action must be one of .*pod\.create/);
    expect(errorsOf({ resourceType: 'planet' })[0]).toMatch(/^resourceType must be one of/);
    expect(errorsOf({ limit: '0' })).toEqual(['limit must be an integer from 1 to 500']);
    expect(errorsOf({ limit: '501' })).toEqual(['limit must be an integer from 1 to 500']);
    expect(errorsOf({ limit: '2.5' })).toEqual(['limit must be an integer from 1 to 500']);
    expect(errorsOf({ cursor: 'not-a-cursor' })).toEqual(['cursor must be a nextCursor this route answered']);
    expect(errorsOf({ actor: ['a', 'b'] })).toEqual(['actor must be given once, as a string']);
    expect(errorsOf({ colour: 'red', limit: 'x' })).toEqual([
      'colour is not a filter of /v2/audit',
      'limit must be an integer from 1 to 500',
    ]);
  });

  it('round-trips its cursors', () => {
    const at = new Date('2026-12-01T10:00:00.123Z');
    expect(parseAuditQuery({ cursor: encodeCursor({ at, id: 'aud_x' }) }).after).toEqual({ at, id: 'aud_x' });
  });
});
