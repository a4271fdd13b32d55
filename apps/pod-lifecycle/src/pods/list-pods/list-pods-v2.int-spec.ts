import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import {
  Headers,
  PodStatus,
  toPodV2View,
  type ListPodsQuery,
  type PodV2View,
  type PodView,
} from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import type { QueryAnswer, QueryContext } from '@app/messaging';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../../data-source.js';
import { PodEntity } from '../pod.entity.js';
import { toPodView } from '../pod.mapper.js';
import { PodRepository } from '../pod.repository.js';
import { ListPodsHandler } from './list-pods.handler.js';
import { PodV2ViewCache } from './pod-v2-view.cache.js';

/**
 * `pod.qry.list-v2`'s pages as the gateway reads them: the views' JSON as JSON.stringify writes it, and the next
 * page's cursor in a header, a page cut at `limit` pods or at its size in bytes; kept views never outlive a change.
 */

let db: TestDatabase;
let dataSource: DataSource;
let repository: PodRepository;
let handler: ListPodsHandler;

/** A pod created `minute` minutes into the day, its env `envBytes` long. */
function pod(id: string, minute: number, envBytes = 10): PodEntity {
  const at = new Date(Date.UTC(2026, 2, 1, 10, minute));
  return Object.assign(new PodEntity(), {
    id,
    ownerId: 'team-v2',
    name: `pod ${id}`,
    image: 'runpod/pytorch:2.4',
    args: null,
    env: { PAYLOAD: 'x'.repeat(envBytes), API_KEY: 'secret' },
    secretEnv: {},
    ports: ['22/tcp'],
    portMappings: { '22/tcp': 40122 },
    publicIp: '192.0.2.7',
    containerDiskGb: 20,
    volumeMountPath: null,
    gpuTypeId: 'AMPERE_16',
    gpuCount: 1,
    cpuTypeId: null,
    hostId: 'host-1',
    dataCenterId: 'US-TX-1',
    clusterId: null,
    clusterRank: null,
    clusterRole: null,
    overlayIp: null,
    mounts: null,
    templateId: null,
    registryAuthId: null,
    networkVolumeId: null,
    status: PodStatus.Running,
    desiredStatus: PodStatus.Running,
    statusReason: null,
    hostNotice: null,
    hostNoticeAt: null,
    stopDeadline: null,
    generation: 1,
    diskEpoch: 1,
    lastStatusChange: at,
    lastStartedAt: at,
    createdAt: at,
    computePerHr: 0.2,
    containerDiskPerGbHr: 0.00014,
    priority: 1,
    interruptible: false,
    endpointId: null,
  } satisfies PodEntity);
}

async function page(payload: ListPodsQuery): Promise<{ views: PodV2View[]; json: string; next?: string }> {
  const ctx = {
    actor: { userId: 'team-v2', kind: 'user' },
    correlationId: 'c',
    payload,
  } as QueryContext<ListPodsQuery>;
  const answer: QueryAnswer<PodV2View[]> = await handler.handleV2(ctx);
  const json = Buffer.concat(answer.json).toString();
  return { views: JSON.parse(json) as PodV2View[], json, next: answer.headers[Headers.PageNext] };
}

/** The views as the gateway made them before: from each pod's entity, through JSON. */
async function expected(ids: string[], secrets = false): Promise<PodV2View[]> {
  const pods = await Promise.all(ids.map((id) => dataSource.manager.findOneByOrFail(PodEntity, { id })));
  return pods.map((p) => toPodV2View(JSON.parse(JSON.stringify(toPodView(p, { secrets }))) as PodView));
}

beforeAll(async () => {
  db = await createTestDatabase('list_pods_v2', { apps: ['pod-lifecycle'] });
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2));
  await dataSource.initialize();
  repository = new PodRepository(dataSource);
  handler = new ListPodsHandler(repository, new PodV2ViewCache());
  for (const [i, id] of ['v-a', 'v-b', 'v-c'].entries()) {
    await repository.insert(pod(id, i), dataSource.manager);
  }
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
});

describe('pod.qry.list-v2 pages', () => {
  it('writes the views as JSON.stringify does, the next cursor on every page but the last', async () => {
    for (const withSecrets of [false, true]) {
      const whole = await page({ withSecrets });
      expect(whole.json).toBe(JSON.stringify(await expected(['v-a', 'v-b', 'v-c'], withSecrets)));
      expect(whole.next).toBeUndefined();
    }
    expect(await page({ limit: 2 })).toMatchObject({ views: await expected(['v-a', 'v-b']), next: 'v-b' });
    expect(await page({ limit: 2, afterId: 'v-b' })).toMatchObject({ views: await expected(['v-c']) });
    expect((await page({ limit: 2, afterId: 'v-b' })).next).toBeUndefined();
    expect((await page({ limit: 3 })).next).toBeUndefined();
  });

  it('shows a pod changed since its view was kept as it is now', async () => {
    await page({});
    await dataSource.query(`UPDATE pod_lifecycle.pods SET name = 'renamed' WHERE id = 'v-b'`);
    const { views } = await page({});
    expect(views[1].name).toBe('renamed');
    expect(views).toEqual(await expected(['v-a', 'v-b', 'v-c']));
  });

  it('cuts a page at its size in bytes, past its first pod', async () => {
    for (const [i, id] of ['w-a', 'w-b', 'w-c'].entries()) {
      await repository.insert(pod(id, 30 + i, 300_000), dataSource.manager);
    }
    const first = await page({ limit: 1000, afterId: 'v-c' });
    expect(first.views.map((v) => v.id)).toEqual(['w-a']);
    expect(first.next).toBe('w-a');
    const second = await page({ limit: 1000, afterId: 'w-a' });
    expect(second.views.map((v) => v.id)).toEqual(['w-b']);
    const last = await page({ limit: 1000, afterId: 'w-b' });
    expect(last).toMatchObject({ views: [{ id: 'w-c' }], next: undefined });
  });
});
