import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { PodStatus } from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { PodEntity } from '../pod.entity.js';
import { PodUsageEntity } from './pod-usage.entity.js';
import { PodUsageRepository } from './pod-usage.repository.js';
import { PodUsage } from './pod-usage.service.js';

/** Pod metering against real Postgres: intervals opened and closed by status changes, and the range read. */

let db: TestDatabase;
let dataSource: DataSource;
let usage: PodUsage;
let repository: PodUsageRepository;

const t = (second: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, second));

function pod(id: string, status: PodStatus, extra: Partial<PodEntity> = {}): PodEntity {
  return Object.assign(new PodEntity(), {
    id,
    ownerId: 'alice',
    status,
    clusterId: null,
    endpointId: null,
    gpuTypeId: 'NVIDIA A100 80GB PCIe',
    gpuCount: 2,
    containerDiskGb: 20,
    computePerHr: 2,
    containerDiskPerGbHr: 0.0001,
    ...extra,
  });
}

async function rows(podId: string): Promise<[string, string, string | null, number, number][]> {
  const found = await dataSource.manager.find(PodUsageEntity, {
    where: { podId },
    order: { startedAt: 'ASC', kind: 'ASC' },
  });
  return found.map((r) => [
    r.kind,
    r.startedAt.toISOString().slice(17, 19),
    r.endedAt?.toISOString().slice(17, 19) ?? null,
    r.units,
    r.ratePerHr,
  ]);
}

/** Runs `work` in a transaction, as a command handler does. */
const inTx = (work: (manager: DataSource['manager']) => Promise<void>) => dataSource.transaction(work);

beforeAll(async () => {
  db = await createTestDatabase('pod_usage', { apps: ['pod-lifecycle'] });
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2));
  await dataSource.initialize();
  repository = new PodUsageRepository(dataSource);
  usage = new PodUsage(repository);
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
});

describe('pod usage', () => {
  it('opens compute and disk at create, closes compute at stop, reopens it at start, closes both at terminate', async () => {
    const p = pod('p-1', PodStatus.Provisioning);
    await inTx((m) => usage.statusChanged(p, null, t(0), m));
    p.status = PodStatus.Running;
    await inTx((m) => usage.statusChanged(p, PodStatus.Starting, t(5), m));
    p.status = PodStatus.Exited;
    await inTx((m) => usage.statusChanged(p, PodStatus.Running, t(10), m));
    p.status = PodStatus.Starting;
    p.computePerHr = 3; // resumed at the price of the moment
    await inTx((m) => usage.statusChanged(p, PodStatus.Exited, t(20), m));
    p.status = PodStatus.Terminated;
    await inTx((m) => usage.statusChanged(p, PodStatus.Starting, t(30), m));
    expect(await rows('p-1')).toEqual([
      ['compute', '00', '10', 2, 2],
      ['disk', '00', '30', 20, 0.002],
      ['compute', '20', '30', 2, 3],
    ]);
  });

  it('reopens an interval closed at the same instant instead of failing, and never ends one before it began', async () => {
    const p = pod('p-2', PodStatus.Running);
    await inTx((m) => usage.statusChanged(p, null, t(0), m));
    p.status = PodStatus.Exited;
    await inTx((m) => usage.statusChanged(p, PodStatus.Running, t(0), m));
    p.status = PodStatus.Starting;
    await inTx((m) => usage.statusChanged(p, PodStatus.Exited, t(0), m));
    await inTx((m) => repository.close('p-2', 'disk', new Date(t(0).getTime() - 5000), m));
    expect(await rows('p-2')).toEqual([
      ['compute', '00', null, 2, 2],
      ['disk', '00', '00', 20, 0.002],
    ]);
  });

  it('splits the disk interval when its size changes', async () => {
    const p = pod('p-3', PodStatus.Exited);
    await inTx((m) => usage.statusChanged(p, null, t(0), m));
    p.containerDiskGb = 40;
    await inTx((m) => usage.diskResized(p, t(7), m));
    expect(await rows('p-3')).toEqual([
      ['disk', '00', '07', 20, 0.002],
      ['disk', '07', null, 40, 0.004],
    ]);
  });

  it("reads an owner's intervals overlapping a range, and nobody else's", async () => {
    await inTx((m) => usage.statusChanged(pod('b-1', PodStatus.Running, { ownerId: 'bob' }), null, t(0), m));
    const overlapping = await repository.overlapping('alice', t(12), t(25));
    expect(overlapping.map((r) => `${r.podId}/${r.kind}`).sort()).toEqual([
      'p-1/compute',
      'p-1/disk',
      'p-2/compute',
      'p-3/disk',
    ]);
    expect(await repository.overlapping('alice', t(40), t(50))).toHaveLength(2); // p-2's compute and p-3's disk still run
  });
});
