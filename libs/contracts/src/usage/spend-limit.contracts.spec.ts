import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode } from '../index.js';
import {
  assertUnderSpendLimit,
  effectiveSpendLimit,
  monthStartOf,
  type SpendStatus,
} from './spend-limit.contracts.js';

const status = (extra: Partial<SpendStatus>): SpendStatus => ({
  userId: 'u1',
  operatorLimit: 50,
  userLimit: null,
  monthlyLimit: 50,
  month: '2026-11',
  startTime: '2026-11-01T00:00:00.000Z',
  endTime: '2026-11-20T10:00:00.000Z',
  spend: 12.5,
  reached: false,
  ...extra,
});

describe('spend limits', () => {
  it('applies the lower of the two limits that are set', () => {
    expect(effectiveSpendLimit(null, null)).toBeNull();
    expect(effectiveSpendLimit(50, null)).toBe(50);
    expect(effectiveSpendLimit(null, 20)).toBe(20);
    expect(effectiveSpendLimit(50, 20)).toBe(20);
    expect(effectiveSpendLimit(0, 20)).toBe(0);
  });

  it('counts from the first instant of the UTC month', () => {
    expect(monthStartOf(new Date('2026-11-20T10:00:00Z')).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(monthStartOf(new Date('2026-12-01T00:00:00Z')).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('refuses with SPEND_LIMIT_REACHED naming whose limit, the limit and the spend; passes under it', () => {
    expect(() => assertUnderSpendLimit(status({}), 'pod create')).not.toThrow();
    const refusal = (() => {
      try {
        assertUnderSpendLimit(status({ userLimit: 10, monthlyLimit: 10, reached: true }), 'pod create');
      } catch (error) {
        return error as DomainError;
      }
    })();
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal?.code).toBe(ErrorCode.SpendLimitReached);
    expect(refusal?.message).toMatch(/^pod create refused: .*your own limit 10; spent 12\.5 in 2026-11/);
    expect(() => assertUnderSpendLimit(status({ spend: 50, reached: true }), 'cluster create')).toThrow(
      /the operator's limit 50; spent 50/,
    );
  });
});
