import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { PodStatus } from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { PodEntity } from './pod.entity.js';
import { toPodView } from './pod.mapper.js';
import { PodRepository } from './pod.repository.js';

/**
 * `listByOwner` builds its pods from the rows itself (`entityFromRow`), not through TypeORM's hydration: the pods
 * and their views must be those TypeORM's own read gives, every column set, none of them null.
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
  it("reads the pods TypeORM reads, every column through the entity's transformers", async () => {
    const listed = await repository.listByOwner('team-raw');
    const hydrated = await dataSource.manager.find(PodEntity, {
      where: { ownerId: 'team-raw' },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    expect(listed.map((pod) => pod.id)).toEqual(['p-a', 'p-b', 'p-c']);
    expect(listed).toEqual(hydrated);
    expect(listed[0]).toBeInstanceOf(PodEntity);
    // Not a column left unread: every property of the entity has its value, numbers as numbers.
    expect(Object.keys(listed[0]).sort()).toEqual(Object.keys(fullPod('p-a', 0)).sort());
    expect(listed[0].computePerHr).toBe(12.345678);
    for (const secrets of [false, true]) {
      expect(listed.map((pod) => toPodView(pod, { secrets }))).toEqual(
        hydrated.map((pod) => toPodView(pod, { secrets })),
      );
    }
  });

  it('pages after a pod, in the same order', async () => {
    const page = await repository.listByOwner('team-raw', { limit: 1, afterId: 'p-a' });
    expect(page.map((pod) => pod.id)).toEqual(['p-b']);
    expect(await repository.listByOwner('team-raw', { limit: 5, afterId: 'p-c' })).toEqual([]);
  });
});
