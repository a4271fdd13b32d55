import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import {
  PodStatus,
  type Actor,
  type PodUsageRecord,
  type UsageGrouping,
  type UsageQuery,
} from '@app/contracts';
import type { QueryContext } from '@app/messaging';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { PodEntity } from '../pod.entity.js';
import { PodUsageEntity } from './pod-usage.entity.js';
import { PodUsageHandler } from './pod-usage.handler.js';
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

describe('usage reads', () => {
  const h = (hour: number, minute = 0) => new Date(Date.UTC(2026, 1, 1, hour, minute, 7));
  const carol = { userId: 'carol' } as Actor;

  async function query(
    groupBy: UsageGrouping,
    bucket: 'hour' | 'day',
    to = h(30),
    page: Pick<UsageQuery, 'limit' | 'afterBucket' | 'afterResourceId'> = {},
  ): Promise<PodUsageRecord[]> {
    const payload = { from: h(1, 30).toISOString(), to: to.toISOString(), bucket, groupBy, ...page };
    return new PodUsageHandler(repository).handle({ actor: carol, payload } as QueryContext<never>);
  }

  beforeAll(async () => {
    // Standalone pods, two members of a cluster on different GPU types, a worker, a CPU pod and one still running,
    // each across several hour boundaries and the range's start.
    const pods = [
      pod('c-pod', PodStatus.Running, { ownerId: 'carol' }),
      pod('c-cpu', PodStatus.Running, { ownerId: 'carol', gpuTypeId: null, gpuCount: 0, computePerHr: 0.3 }),
      pod('c-m1', PodStatus.Running, { ownerId: 'carol', clusterId: 'cl-1' }),
      pod('c-m2', PodStatus.Running, {
        ownerId: 'carol',
        clusterId: 'cl-1',
        gpuTypeId: 'NVIDIA H100 80GB HBM3',
      }),
      pod('c-w1', PodStatus.Running, { ownerId: 'carol', endpointId: 'ep-1', computePerHr: 1.7 }),
      pod('c-open', PodStatus.Running, { ownerId: 'carol', computePerHr: 0.9 }),
    ];
    for (const [i, p] of pods.entries()) await inTx((m) => usage.statusChanged(p, null, h(i, 13 * i), m));
    for (const [i, p] of pods.slice(0, -1).entries()) {
      p.status = PodStatus.Terminated;
      await inTx((m) => usage.statusChanged(p, PodStatus.Running, h(3 + 2 * i, 41 - i), m));
    }
  });

  it('sums each family per bucket in Postgres to what the per-resource records add up to', async () => {
    for (const bucket of ['hour', 'day'] as const) {
      const families = await query('family', bucket);
      const expected = new Map<string, number[]>();
      for (const [groupBy, family] of [
        ['pod', 'pod'],
        ['cluster', 'cluster'],
        ['endpoint', 'endpoint'],
      ] as const) {
        for (const r of await query(groupBy, bucket)) {
          const sums = expected.get(`${r.bucket} ${family}`) ?? [0, 0, 0, 0, 0];
          const values = [r.computeSeconds, r.gpuSeconds, r.computeCost, r.diskGbSeconds, r.diskCost];
          expected.set(
            `${r.bucket} ${family}`,
            sums.map((sum, i) => sum + values[i]),
          );
        }
      }
      expect(families.map((r) => `${r.bucket} ${r.resourceId}`).sort()).toEqual([...expected.keys()].sort());
      for (const r of families) {
        const values = [r.computeSeconds, r.gpuSeconds, r.computeCost, r.diskGbSeconds, r.diskCost];
        const sums = expected.get(`${r.bucket} ${r.resourceId}`) as number[];
        values.forEach((value, i) => expect(value).toBeCloseTo(sums[i], 5));
        expect(r.gpuTypeId).toBeNull();
      }
      expect(families.length).toBeGreaterThan(bucket === 'hour' ? 10 : 1);
    }
  });

  it('reports each resource with its GPU type, null for CPU pods and mixed clusters', async () => {
    const types = (records: PodUsageRecord[]) => new Map(records.map((r) => [r.resourceId, r.gpuTypeId]));
    expect(types(await query('pod', 'day'))).toEqual(
      new Map([
        ['c-pod', 'NVIDIA A100 80GB PCIe'],
        ['c-cpu', null],
        ['c-open', 'NVIDIA A100 80GB PCIe'],
      ]),
    );
    expect(types(await query('cluster', 'day'))).toEqual(new Map([['cl-1', null]]));
    expect(types(await query('endpoint', 'day'))).toEqual(new Map([['ep-1', 'NVIDIA A100 80GB PCIe']]));
  });

  it('answers in pages, after a record, that add up to the whole answer in its order, none twice', async () => {
    for (const groupBy of ['pod', 'cluster', 'family'] as const) {
      for (const bucket of ['hour', 'day'] as const) {
        const whole = await query(groupBy, bucket);
        for (const limit of [1, 3, whole.length]) {
          const pages: PodUsageRecord[][] = [];
          for (let after: PodUsageRecord | undefined; pages.length <= whole.length + 1;) {
            const cursor = after ? { afterBucket: after.bucket, afterResourceId: after.resourceId } : {};
            const page = await query(groupBy, bucket, h(30), { limit, ...cursor });
            pages.push(page);
            if (page.length < limit) break;
            after = page[page.length - 1];
          }
          expect(pages.every((page) => page.length <= limit)).toBe(true);
          expect(pages.flat()).toEqual(whole); // same records, values and GPU types, same order: none twice
        }
        expect(whole.length).toBeGreaterThan(bucket === 'hour' ? 3 : 0);
      }
    }
  });

  it('accrues an open interval until the end of the range, and a range in the future to nothing', async () => {
    const until = h(20);
    const open = (await query('family', 'hour', until)).filter(
      (r) => r.bucket === h(19, 0).toISOString().slice(0, 14) + '00:00.000Z',
    );
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ resourceId: 'pod', computeSeconds: 3600, diskGbSeconds: 72_000 });
    expect(open[0].computeCost).toBeCloseTo(0.9, 6);
    const future = {
      from: new Date(Date.now() + 3_600_000).toISOString(),
      to: new Date(Date.now() + 7_200_000).toISOString(),
    };
    const payload = { ...future, bucket: 'hour', groupBy: 'family' };
    expect(
      await new PodUsageHandler(repository).handle({ actor: carol, payload } as QueryContext<never>),
    ).toEqual([]);
  });
});
