import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/test-database.js';
import { StoragePriceEntity } from '../../catalog/storage-price.entity.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { NetworkVolumeEntity } from '../network-volume.entity.js';
import { VolumeUsageEntity } from './volume-usage.entity.js';
import { VolumeUsageRepository } from './volume-usage.repository.js';

/** Network volume metering against real Postgres: size × the GB-hour price of the moment, per interval. */

let db: TestDatabase;
let dataSource: DataSource;
let repository: VolumeUsageRepository;

const t = (second: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, second));
const volume = (sizeGb: number) =>
  Object.assign(new NetworkVolumeEntity(), { id: 'vol-1', ownerId: 'alice', sizeGb });

beforeAll(async () => {
  db = await createTestDatabase('volume_usage', { apps: ['cluster-scheduler'] });
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2));
  await dataSource.initialize();
  repository = new VolumeUsageRepository(dataSource);
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
});

describe('volume usage', () => {
  it('accrues from create, splits at a resize (at the price then), and ends at delete', async () => {
    const price = (perGbHr: number) =>
      dataSource.manager.upsert(StoragePriceEntity, { kind: 'networkVolume', perGbHr }, ['kind']);
    await price(0.0001);
    await dataSource.transaction((m) => repository.open(volume(10), t(0), m));
    await price(0.0002);
    await dataSource.transaction(async (m) => {
      await repository.close('vol-1', t(30), m);
      await repository.open(volume(50), t(30), m);
    });
    await dataSource.transaction((m) => repository.close('vol-1', t(45), m));
    const rows = await dataSource.manager.find(VolumeUsageEntity, { order: { startedAt: 'ASC' } });
    expect(
      rows.map((r) => [r.startedAt.getUTCSeconds(), r.endedAt?.getUTCSeconds(), r.sizeGb, r.ratePerHr]),
    ).toEqual([
      [0, 30, 10, 0.001],
      [30, 45, 50, 0.01],
    ]);
    // The read's plain rows are the stored intervals, values and types alike.
    expect(await repository.overlapping('alice', t(0), t(60))).toEqual(rows.map((r) => ({ ...r })));
    expect(await repository.overlapping('alice', t(31), t(40))).toHaveLength(1);
    expect(await repository.overlapping('bob', t(0), t(40))).toEqual([]);
  });
});
