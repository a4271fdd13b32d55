import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type VolumeUsageRecord } from '@app/contracts';
import { SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { VolumeUsageHandler } from './volume-usage.handler.js';
import { VolumeUsageRepository } from './volume-usage.repository.js';

/**
 * `volume.qry.usage` over cluster-scheduler's real schema: the intervals its volume commands (create, grow, delete)
 * record, at the default fleet's 0.0001 per GB-hour, accrued per bucket and volume within the range asked.
 */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;
/** ALICE's: 10 GB from 10:00, 20 GB from 11:30, deleted at 12:00. */
let grown: string;
/** ALICE's: 10 GB from 11:00 to 11:15. */
let brief: string;
/** BOB's: 10 GB from 10:00, never deleted. */
let bobs: string;

const at = (time: string) => ({ issuedAt: `2026-03-01T${time}:00.000Z` });
const usage = (
  from: string,
  to: string,
  bucket: 'hour' | 'day',
  more: { resourceId?: string } = {},
  actor = {},
) =>
  harness.query(
    Subjects.volume.usage,
    { from: `2026-03-01T${from}:00.000Z`, to: `2026-03-01T${to}:00.000Z`, bucket, ...more },
    actor,
  );
const record = (hour: string, resourceId: string, gbSeconds: number, cost: number): VolumeUsageRecord => ({
  bucket: `2026-03-01T${hour}:00.000Z`,
  resourceId,
  gbSeconds,
  cost,
});
const byVolume = (records: VolumeUsageRecord[]) =>
  [...records].sort((a, b) => a.bucket.localeCompare(b.bucket) || a.resourceId.localeCompare(b.resourceId));

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_volume_usage');
  harness = scheduler.harness;
  harness.register(new VolumeUsageHandler(new VolumeUsageRepository(harness.dataSource)));
  grown = (await scheduler.createVolume('grown', 'US-TX-3', at('10:00'))).id;
  bobs = (await scheduler.createVolume('bobs', 'US-TX-3', { ...at('10:00'), actor: BOB })).id;
  brief = (await scheduler.createVolume('brief', 'US-TX-3', at('11:00'))).id;
  await harness.send(Subjects.volume.delete, { id: brief }, at('11:15'));
  await harness.send(Subjects.volume.update, { id: grown, size: 20 }, at('11:30'));
  await harness.send(Subjects.volume.delete, { id: grown }, at('12:00'));
});

afterAll(async () => {
  await scheduler?.stop();
});

describe('network volume usage', () => {
  it("answers the caller's volumes per hour, split at a resize, up to each one's delete", async () => {
    expect(await usage('10:00', '13:00', 'hour')).toEqual(
      byVolume([
        record('10:00', grown, 10 * 3600, 0.001),
        record('11:00', grown, 10 * 1800 + 20 * 1800, 0.0015),
        record('11:00', brief, 10 * 900, 0.00025),
      ]),
    );
  });

  it('sums a day bucket, and cuts the intervals at the range asked', async () => {
    expect(await usage('00:00', '23:00', 'day')).toEqual(
      byVolume([record('00:00', grown, 90_000, 0.0025), record('00:00', brief, 9000, 0.00025)]),
    );
    expect(await usage('11:45', '13:00', 'hour')).toEqual([record('11:00', grown, 20 * 900, 0.0005)]);
  });

  it('answers one volume when asked for it, and nothing of another user', async () => {
    expect(await usage('10:00', '13:00', 'hour', { resourceId: brief })).toEqual([
      record('11:00', brief, 9000, 0.00025),
    ]);
    expect(await usage('10:00', '13:00', 'hour', { resourceId: bobs })).toEqual([]);
    // BOB's volume is still there: accrued to the end of the range.
    expect(await usage('10:00', '11:00', 'hour', {}, { actor: BOB })).toEqual([
      record('10:00', bobs, 10 * 3600, 0.001),
    ]);
  });

  it('refuses a range that ends before it starts, or without a bucket (422)', async () => {
    expect(await refusalOf(usage('12:00', '10:00', 'hour'))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      errors: ['startTime must be before endTime'],
    });
    const noBucket = harness.query(Subjects.volume.usage, {
      from: '2026-03-01T10:00:00.000Z',
      to: '2026-03-01T11:00:00.000Z',
    });
    expect(await refusalOf(noBucket)).toMatchObject({ code: ErrorCode.ValidationFailed });
  });
});
