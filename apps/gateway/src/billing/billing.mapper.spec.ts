import { describe, expect, it } from '@jest/globals';
import type { UsageExportRow } from '@app/contracts';
import { billingRange } from './billing-query.js';
import { JsonRecords, formatExport, toComputeBilling, withMetadata } from './billing.mapper.js';

const row: UsageExportRow = {
  time: '2026-01-01T00:00:00.000Z',
  family: 'pod',
  resourceId: 'pod,"1"',
  gpuTypeId: null,
  computeSeconds: 1.5,
  gpuSeconds: 0,
  storageGbSeconds: 30,
  computeAmount: 0.1,
  storageAmount: 0.2,
  totalAmount: 0.3,
};

describe('billing export and records', () => {
  it('writes CSV with a header, quoting what needs it, and JSON lines', () => {
    expect(formatExport([row], 'csv')).toBe(
      'time,family,resourceId,gpuTypeId,computeSeconds,gpuSeconds,storageGbSeconds,computeAmount,storageAmount,totalAmount\r\n' +
        '2026-01-01T00:00:00.000Z,pod,"pod,""1""",,1.5,0,30,0.1,0.2,0.3\r\n',
    );
    expect(formatExport([row, row], 'jsonl').split('\n')).toEqual([
      JSON.stringify(row),
      JSON.stringify(row),
      '',
    ]);
    expect(formatExport([], 'jsonl')).toBe('');
  });

  it('shows compute as GPU or CPU amount and hours', () => {
    const base = {
      bucket: 'b',
      resourceId: 'p',
      computeSeconds: 1800,
      computeCost: 1,
      diskGbSeconds: 7200,
      diskCost: 0.5,
    };
    expect(toComputeBilling({ ...base, gpuTypeId: 'G', gpuSeconds: 3600 })).toEqual({
      time: 'b',
      gpuTypeId: 'G',
      gpuAmount: 1,
      cpuAmount: 0,
      diskAmount: 0.5,
      totalAmount: 1.5,
      timeBilledMs: 1_800_000,
      gpuHours: 1,
      diskGbHours: 2,
    });
    expect(toComputeBilling({ ...base, gpuTypeId: null, gpuSeconds: 0 })).toMatchObject({
      gpuAmount: 0,
      cpuAmount: 1,
    });
  });

  it('defaults the range to the last 30 days in day buckets and refuses what it cannot read', () => {
    const now = new Date('2026-02-01T00:00:00Z');
    expect(billingRange({}, now)).toEqual({
      from: '2026-01-02T00:00:00.000Z',
      to: now.toISOString(),
      bucket: 'day',
    });
    expect(billingRange({ startTime: '2026-01-31T10:00:00+02:00', bucketSize: 'hour' }, now)).toMatchObject({
      from: '2026-01-31T08:00:00.000Z',
      bucket: 'hour',
    });
    expect(() => billingRange({ bucketSize: 'week' }, now)).toThrow('the request failed validation');
    expect(() => billingRange({ endTime: 'yesterday' }, now)).toThrow('the request failed validation');
  });

  it('writes records page by page as the whole list and its metadata serialize, byte for byte', () => {
    const range = billingRange({ bucketSize: 'hour' }, new Date('2026-02-01T00:00:00Z'));
    const records = Array.from({ length: 7 }, (_, i) => ({
      time: `2026-01-31T0${i}:00:00.000Z`,
      podId: `pod-"${i}"`,
      gpuTypeId: i % 2 ? null : 'G',
      totalAmount: 0.1 * (i + 1),
    }));
    const amount = (record: { totalAmount: number }) => record.totalAmount;
    const pages = [records.slice(0, 3), [], records.slice(3, 6), records.slice(6)];
    const written = new JsonRecords(amount);
    for (const page of pages) written.add(page);
    expect(written.body(range).toString()).toBe(JSON.stringify(withMetadata(records, range, amount)));
    expect(new JsonRecords(amount).body(range).toString()).toBe(
      JSON.stringify(withMetadata([], range, amount)),
    );
  });
});
