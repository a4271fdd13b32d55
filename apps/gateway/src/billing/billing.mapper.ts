import {
  roundMoney,
  type BillingMetadata,
  type ComputeBilling,
  type PodUsageRecord,
  type UsageExportRow,
  type VolumeUsageRecord,
} from '@app/contracts';
import { jsonBody, type JsonBody } from '../edge/json-body.js';
import type { BillingRange } from './billing-query.js';

const hours = (seconds: number) => Math.round((seconds / 3600) * 1e6) / 1e6;

/** A pod usage record as the v2 billing routes show it (the caller adds the id under its family's name). */
export function toComputeBilling(record: PodUsageRecord): ComputeBilling {
  const gpu = record.gpuSeconds > 0;
  return {
    time: record.bucket,
    gpuTypeId: record.gpuTypeId,
    gpuAmount: gpu ? record.computeCost : 0,
    cpuAmount: gpu ? 0 : record.computeCost,
    diskAmount: record.diskCost,
    totalAmount: roundMoney(record.computeCost + record.diskCost),
    timeBilledMs: Math.round(record.computeSeconds * 1000),
    gpuHours: hours(record.gpuSeconds),
    diskGbHours: hours(record.diskGbSeconds),
  };
}

/** Records with the echoed query and their total. */
export function withMetadata<T>(
  records: T[],
  range: BillingRange,
  amount: (record: T) => number,
): { records: T[]; metadata: BillingMetadata } {
  const sum = records.reduce((total, record) => total + amount(record), 0);
  return { records, metadata: metadataOf(range, records.length, sum) };
}

function metadataOf(range: BillingRange, recordCount: number, sum: number): BillingMetadata {
  return {
    startTime: range.from,
    endTime: range.to,
    bucketSize: range.bucket,
    recordCount,
    totalAmount: roundMoney(sum),
  };
}

/**
 * Records serialized page by page into what `JSON.stringify(withMetadata(records, range, amount))` writes, byte for
 * byte: a large account's usage is 30,000 records (6 MB of JSON), and holding them all as objects, then mapped, then
 * as text, set the gateway's peak memory. Each page becomes UTF-8 bytes as it arrives (`JsonBody`); the metadata
 * (count, total summed in the same order) comes last, as it does in the object.
 */
export class JsonRecords<T> {
  private readonly parts: Buffer[] = [];
  private count = 0;
  private sum = 0;

  constructor(private readonly amount: (record: T) => number) {}

  add(records: readonly T[]): void {
    if (!records.length) return;
    for (const record of records) this.sum += this.amount(record);
    // `[a,b]` without its brackets, after a comma from the second page on: the pages' texts make the whole array's.
    const text = JSON.stringify(records).slice(1, -1);
    this.parts.push(Buffer.from(this.count ? `,${text}` : text));
    this.count += records.length;
  }

  body(range: BillingRange): JsonBody<{ records: T[]; metadata: BillingMetadata }> {
    const metadata = JSON.stringify(metadataOf(range, this.count, this.sum));
    return jsonBody(
      Buffer.concat([Buffer.from('{"records":['), ...this.parts, Buffer.from(`],"metadata":${metadata}}`)]),
    );
  }
}

export function podExportRow(family: UsageExportRow['family'], record: PodUsageRecord): UsageExportRow {
  return {
    time: record.bucket,
    family,
    resourceId: record.resourceId,
    gpuTypeId: record.gpuTypeId,
    computeSeconds: record.computeSeconds,
    gpuSeconds: record.gpuSeconds,
    storageGbSeconds: record.diskGbSeconds,
    computeAmount: record.computeCost,
    storageAmount: record.diskCost,
    totalAmount: roundMoney(record.computeCost + record.diskCost),
  };
}

export function volumeExportRow(record: VolumeUsageRecord): UsageExportRow {
  return {
    time: record.bucket,
    family: 'network-volume',
    resourceId: record.resourceId,
    gpuTypeId: null,
    computeSeconds: 0,
    gpuSeconds: 0,
    storageGbSeconds: record.gbSeconds,
    computeAmount: 0,
    storageAmount: record.cost,
    totalAmount: record.cost,
  };
}

const COLUMNS: readonly (keyof UsageExportRow)[] = [
  'time',
  'family',
  'resourceId',
  'gpuTypeId',
  'computeSeconds',
  'gpuSeconds',
  'storageGbSeconds',
  'computeAmount',
  'storageAmount',
  'totalAmount',
];

/** A CSV field: quoted when it holds a comma, quote or line break (RFC 4180); null is empty. */
function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The export as CSV (a header row, CRLF line ends) or JSON lines (one object per line). */
export function formatExport(rows: readonly UsageExportRow[], format: 'csv' | 'jsonl'): string {
  if (format === 'jsonl') return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
  const lines = [COLUMNS.join(','), ...rows.map((row) => COLUMNS.map((c) => csvField(row[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
