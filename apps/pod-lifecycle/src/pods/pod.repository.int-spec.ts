import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { PodStatus } from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { PodEntity } from './pod.entity.js';
import { listedPodView, toPodView } from './pod.mapper.js';
import { PodRepository } from './pod.repository.js';

/**
 * `listByOwner` reads plain rows, their times written as text by Postgres, not entities through TypeORM's hydration:
 * the views of the rows (`listedPodView`) must be those of the entities TypeORM reads (`toPodView`), for pods with
 * every column set, times to the microsecond among them.
 */

let db: TestDatabase;
let dataSource: DataSource;
let repository: PodRepository;

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute, 0, 123));

/** A pod with every column set to something other than its default or null. */
function fullPod(id: string, minute: number): PodEntity {
  return Object.assign(new PodEntity(), {
    id,
    ownerId: 'team-raw',
    name: `pod ${id}`,
    image: 'runpod/pytorch:2.4',
    args: 'python train.py',
    env: { RUN: '1', API_TOKEN: 'secret-value', EMPTY_KEY: '' },
    secretEnv: { RUNPOD_AI_API_KEY: { sealed: 'v1.k1.aaa.bbb.ccc', context: 'ep-1' } },
    ports: ['8888/http', '22/tcp'],
    portMappings: { '22/tcp': 40122, '8888/http': 40888 },
    publicIp: '192.0.2.7',
    containerDiskGb: 40,
    volumeMountPath: '/workspace',
    gpuTypeId: 'NVIDIA A100 80GB PCIe',
    gpuCount: 8,
    cpuTypeId: 'cpu3c',
    hostId: 'host-7',
    dataCenterId: 'US-TX-1',
    clusterId: 'cluster-1',
    clusterRank: 2,
    clusterRole: 'worker',
    overlayIp: '10.128.0.3',
    mounts: { persistent: { size: 50, path: '/workspace' }, network: [{ volumeId: 'vol-1', path: '/data' }] },
    templateId: 'tpl-1',
    registryAuthId: 'reg-1',
    networkVolumeId: 'vol-1',
    status: PodStatus.Running,
    desiredStatus: PodStatus.Running,
    statusReason: 'HOST_DRAINING: host-7 drains until 2026-03-02T00:00:00.000Z',
    hostNotice: 'HOST_DRAINING: host-7 drains until 2026-03-02T00:00:00.000Z',
    hostNoticeAt: at(minute + 1),
    stopDeadline: at(minute + 2),
    generation: 3,
    diskEpoch: 2,
    lastStatusChange: at(minute + 3),
    lastStartedAt: at(minute + 4),
    createdAt: at(minute),
    computePerHr: 12.345678,
    containerDiskPerGbHr: 0.00014,
    priority: 2,
    interruptible: true,
    endpointId: 'ep-1',
  } satisfies PodEntity);
}

beforeAll(async () => {
  db = await createTestDatabase('pod_repository', { apps: ['pod-lifecycle'] });
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2));
  await dataSource.initialize();
  repository = new PodRepository(dataSource);
  for (const [i, id] of ['p-a', 'p-b', 'p-c'].entries()) {
    await repository.insert(fullPod(id, i * 10), dataSource.manager);
  }
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
});

describe('PodRepository.listByOwner', () => {
  it('reads the pods TypeORM reads, and their views are the same', async () => {
    const listed = await repository.listByOwner('team-raw');
    const hydrated = await dataSource.manager.find(PodEntity, {
      where: { ownerId: 'team-raw' },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    expect(listed.map((pod) => pod.id)).toEqual(['p-a', 'p-b', 'p-c']);
    // Every column read, each as the entity has it but the times, which are the views' text.
    expect(Object.keys(listed[0]).sort()).toEqual(Object.keys(hydrated[0]).sort());
    const times = ['hostNoticeAt', 'stopDeadline', 'lastStatusChange', 'lastStartedAt', 'createdAt'] as const;
    for (const [i, pod] of hydrated.entries()) {
      const row: Record<string, unknown> = { ...pod };
      for (const time of times) row[time] = pod[time]?.toISOString() ?? null;
      expect(listed[i]).toEqual(row);
    }
    expect(listed[0].computePerHr).toBe(12.345678);
    for (const secrets of [false, true]) {
      expect(listed.map((pod) => listedPodView(pod, { secrets }))).toEqual(
        hydrated.map((pod) => toPodView(pod, { secrets })),
      );
    }
  });

  it('writes a time to the millisecond as a Date read from it would, its microseconds dropped', async () => {
    await dataSource.query(
      `UPDATE pod_lifecycle.pods SET last_started_at = '2026-03-01 10:00:00.123999+00',
         created_at = '2026-03-01 09:59:59.999999+00', host_notice_at = NULL, stop_deadline = NULL WHERE id = 'p-a'`,
    );
    const [listed] = await repository.listByOwner('team-raw', { limit: 1 });
    const entity = await dataSource.manager.findOneByOrFail(PodEntity, { id: 'p-a' });
    expect(listed).toMatchObject({
      lastStartedAt: '2026-03-01T10:00:00.123Z',
      createdAt: '2026-03-01T09:59:59.999Z',
      hostNoticeAt: null,
      stopDeadline: null,
    });
    expect(listedPodView(listed)).toEqual(toPodView(entity));
  });

  it('pages after a pod, in the same order', async () => {
    const page = await repository.listByOwner('team-raw', { limit: 1, afterId: 'p-a' });
    expect(page.map((pod) => pod.id)).toEqual(['p-b']);
    expect(await repository.listByOwner('team-raw', { limit: 5, afterId: 'p-c' })).toEqual([]);
  });

  it("reads a page's pods by id and row version, the version new after an update and not after a lock", async () => {
    const versions = await repository.listVersionsByOwner('team-raw', { limit: 2 });
    expect(versions.map((pod) => pod.id)).toEqual(['p-a', 'p-b']);
    const rows = await repository.listRowsByIds(['p-b', 'p-a', 'gone']);
    const listed = await repository.listByOwner('team-raw', { limit: 2 });
    expect(rows.map(({ version, ...row }) => [row.id, version, row])).toEqual(
      expect.arrayContaining(listed.map((row, i) => [row.id, versions[i].version, row])),
    );
    expect(rows).toHaveLength(2);
    await dataSource.transaction((manager) => repository.lockById('p-a', manager));
    const [locked] = await repository.listVersionsByOwner('team-raw', { limit: 1 });
    expect(locked.version).toBe(versions[0].version);
    await dataSource.query(`UPDATE pod_lifecycle.pods SET name = 'renamed' WHERE id = 'p-a'`);
    const [updated] = await repository.listVersionsByOwner('team-raw', { limit: 1 });
    expect(updated.version).not.toBe(versions[0].version);
  });
});
