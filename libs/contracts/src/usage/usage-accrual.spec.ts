import { describe, expect, it } from '@jest/globals';
import { accrue, bucketStart, type UsageInterval } from './usage-accrual.js';

const at = (iso: string) => new Date(iso);
const range = {
  from: at('2026-01-01T00:00:00Z'),
  to: at('2026-01-03T00:00:00Z'),
  now: at('2026-01-02T12:00:00Z'),
};
const interval = (startedAt: string, endedAt: string | null, ratePerHr = 3.6, units = 2): UsageInterval => ({
  key: 'pod-1',
  startedAt: at(startedAt),
  endedAt: endedAt === null ? null : at(endedAt),
  ratePerHr,
  units,
});

describe('usage accrual', () => {
  it('charges rate × seconds / 3600 to the millisecond', () => {
    const [one] = accrue([interval('2026-01-01T10:00:00Z', '2026-01-01T10:00:01.500Z')], range, 'hour');
    expect(one).toEqual({
      bucket: '2026-01-01T10:00:00.000Z',
      key: 'pod-1',
      seconds: 1.5,
      unitSeconds: 3,
      cost: 0.0015,
    });
  });

  it('cuts an interval at bucket boundaries and sums intervals of one key', () => {
    const records = accrue(
      [
        interval('2026-01-01T10:30:00Z', '2026-01-01T11:15:00Z'),
        interval('2026-01-01T11:45:00Z', '2026-01-01T12:00:00Z'),
      ],
      range,
      'hour',
    );
    expect(records.map((r) => [r.bucket.slice(11, 16), r.seconds, r.cost])).toEqual([
      ['10:00', 1800, 1.8],
      ['11:00', 1800, 1.8],
    ]);
    expect(accrue([interval('2026-01-01T23:00:00Z', '2026-01-02T01:00:00Z')], range, 'day')).toMatchObject([
      { bucket: '2026-01-01T00:00:00.000Z', seconds: 3600 },
      { bucket: '2026-01-02T00:00:00.000Z', seconds: 3600 },
    ]);
  });

  it('clips to the range, and an open interval accrues until now', () => {
    const records = accrue([interval('2025-12-31T23:00:00Z', null)], range, 'day');
    expect(records.map((r) => [r.bucket.slice(0, 10), r.seconds])).toEqual([
      ['2026-01-01', 86_400],
      ['2026-01-02', 43_200],
    ]);
    expect(accrue([interval('2026-01-05T00:00:00Z', null)], range, 'day')).toEqual([]);
  });

  it('reports nothing for an empty interval and keeps keys apart', () => {
    const other = { ...interval('2026-01-01T00:00:00Z', '2026-01-01T00:00:10Z'), key: 'pod-0' };
    const empty = interval('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
    expect(accrue([empty, other], range, 'hour').map((r) => r.key)).toEqual(['pod-0']);
  });

  it('truncates to UTC hours and days', () => {
    const t = at('2026-01-01T10:59:59.999Z').getTime();
    expect(new Date(bucketStart(t, 'hour')).toISOString()).toBe('2026-01-01T10:00:00.000Z');
    expect(new Date(bucketStart(t, 'day')).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});
