import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  ClusterList,
  ClusterView,
  GpuTypeView,
  NetworkVolumeView,
  PodV2List,
  SshKeyView,
} from '@app/contracts';
import { createKey } from '../support/accounts.js';
import { closeBus } from '../support/bus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import {
  A100,
  H100,
  api,
  createUserWithKey,
  eventually,
  publishPodStatus,
  registryAuthKeys,
  sql,
  sshPublicKey,
  writeFleet,
  type ApiResponse,
} from './clusters-fixtures.js';

interface Problem {
  title: string;
  status: number;
  detail: string;
  errors?: string[];
}

let db: TestDatabase;
let system: RunningSystem;
let gateway: string;
let alice: { userId: string; key: string };
let bob: { userId: string; key: string };
let aliceVolume: NetworkVolumeView;
let bobVolume: NetworkVolumeView;

/** US-TX-3: 4 × 8 A100; EU-RO-1: 2 × 8 A100; EU-CZ-1: 2 × 8 H100. */
const FLEET = writeFleet([
  ...[1, 2, 3, 4].map((n) => ({ id: `tx-a100-${n}`, dataCenterId: 'US-TX-3', gpuTypeId: A100, gpuCount: 8 })),
  ...[1, 2].map((n) => ({ id: `ro-a100-${n}`, dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 })),
  ...[1, 2].map((n) => ({ id: `cz-h100-${n}`, dataCenterId: 'EU-CZ-1', gpuTypeId: H100, gpuCount: 8 })),
]);

const VALID = {
  name: 'train',
  type: 'TRAINING',
  compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
};

beforeAll(async () => {
  db = await createTestDatabase('clusters');
  system = await startApps({
    apps: ['gateway', 'cluster-scheduler'],
    databaseUrl: db.url,
    appEnv: {
      gateway: { REGISTRY_AUTH_KEYS: registryAuthKeys() },
      'cluster-scheduler': { FLEET_FILE: FLEET },
    },
  });
  gateway = system.url('gateway');
  alice = await createUserWithKey(db.url, 'alice');
  bob = await createUserWithKey(db.url, 'bob');
  aliceVolume = (
    await api<NetworkVolumeView>(gateway, alice.key, 'POST', '/v1/networkvolumes', {
      name: 'data',
      size: 100,
      dataCenterId: 'EU-RO-1',
    })
  ).body;
  bobVolume = (
    await api<NetworkVolumeView>(gateway, bob.key, 'POST', '/v1/networkvolumes', {
      name: 'bobs',
      size: 10,
      dataCenterId: 'EU-RO-1',
    })
  ).body;
});

afterAll(async () => {
  await system?.stop();
  if (system) await deleteStreams(system.natsPrefix);
  await closeBus();
  await db?.drop();
});

function merge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else if (v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object') {
      out[k] = merge(base[k] as Record<string, unknown>, v as Record<string, unknown>);
    } else out[k] = v;
  }
  return out;
}

function expectProblem(response: ApiResponse, status: number, errorPattern?: RegExp): Problem {
  const problem = response.body as Problem;
  expect({ status: response.status, body: problem }).toMatchObject({ status, body: { status } });
  expect(response.contentType).toContain('application/problem+json');
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  if (errorPattern) {
    expect(problem.errors ?? []).toEqual(expect.arrayContaining([expect.stringMatching(errorPattern)]));
  }
  return problem;
}

async function freeGpus(gpuTypeId: string): Promise<number> {
  const gpus = await api<GpuTypeView[]>(gateway, alice.key, 'GET', '/v2/catalog/gpus');
  return gpus.body.find((g) => g.id === gpuTypeId)!.availability.freeGpus;
}

describe('POST /v2/clusters validation', () => {
  const cases: [string, Record<string, unknown>, number, RegExp | undefined][] = [
    ['name missing', { name: undefined }, 422, /^name /],
    ['name empty', { name: '' }, 422, /^name must be longer than or equal to 1/],
    ['name not a string', { name: 7 }, 422, /^name must be a string/],
    ['type unknown', { type: 'GPU' }, 422, /^type must be one of/],
    ['compute missing', { compute: undefined }, 422, /^compute /],
    ['compute not an object', { compute: 'big' }, 422, /^compute /],
    ['compute.gpuTypeId empty', { compute: { gpuTypeId: '' } }, 422, /^compute\.gpuTypeId /],
    [
      'compute.gpuTypeId unknown',
      { compute: { gpuTypeId: 'NVIDIA Z9000' } },
      422,
      /^compute\.gpuTypeId must be a GPU type id/,
    ],
    [
      'compute.gpuCountPerPod 0',
      { compute: { gpuCountPerPod: 0 } },
      422,
      /^compute\.gpuCountPerPod must not be less than 1/,
    ],
    [
      'compute.gpuCountPerPod not an integer',
      { compute: { gpuCountPerPod: 1.5 } },
      422,
      /^compute\.gpuCountPerPod must be an integer/,
    ],
    [
      'compute.gpuCountPerPod above maxCount',
      { compute: { gpuCountPerPod: 9 } },
      422,
      /^compute\.gpuCountPerPod must not be greater than 8 for NVIDIA A100 80GB PCIe/,
    ],
    ['compute.podCount 1', { compute: { podCount: 1 } }, 422, /^compute\.podCount must not be less than 2/],
    [
      'compute.podCount 251',
      { compute: { podCount: 251 } },
      422,
      /^compute\.podCount must not be greater than 250/,
    ],
    ['compute.podCount missing', { compute: { podCount: undefined } }, 422, /^compute\.podCount /],
    ['compute unknown property', { compute: { region: 'US' } }, 422, /^compute\.region.*should not exist/],
    ['unknown top-level property', { templateId: 'abc' }, 422, /^templateId.*should not exist/],
    ['disk 0', { disk: 0 }, 422, /^disk must not be less than 1/],
    ['ports without protocol', { ports: ['8080'] }, 422, /^ports /],
    ['ports with udp', { ports: ['53/udp'] }, 422, /^ports /],
    ['ports beyond 65535', { ports: ['70000/tcp'] }, 422, /^ports /],
    ['env with a number', { env: { A: 1 } }, 422, /^env /],
    ['image empty', { image: '' }, 422, /^image /],
    ['args not a string', { args: ['a'] }, 422, /^args /],
    ['dataCenterIds not an array', { dataCenterIds: 'US-TX-3' }, 422, /^dataCenterIds/],
    [
      'dataCenterIds unknown',
      { dataCenterIds: ['US-TX-3', 'MARS-1'] },
      422,
      /^dataCenterIds\.1 must be a data center id/,
    ],
    ['startJupyter not a boolean', { startJupyter: 'yes' }, 422, /^startJupyter must be a boolean/],
    ['startSsh not a boolean', { startSsh: 1 }, 422, /^startSsh must be a boolean/],
    ['startSsh without a registered key', { startSsh: true }, 400, undefined],
    [
      'both mount kinds',
      { mounts: { persistent: { size: 20, path: '/data' }, network: [{ volumeId: 'v', path: '/net' }] } },
      400,
      undefined,
    ],
    ['mounts.network empty', { mounts: { network: [] } }, 400, undefined],
    ['mounts unknown property', { mounts: { nfs: {} } }, 422, /^mounts\.nfs.*should not exist/],
    [
      'persistent mount without path',
      { mounts: { persistent: { size: 20 } } },
      422,
      /^mounts\.persistent\.path /,
    ],
    [
      'persistent mount without size',
      { mounts: { persistent: { path: '/d' } } },
      422,
      /^mounts\.persistent\.size /,
    ],
    [
      'persistent mount below 10 GB',
      { mounts: { persistent: { size: 9, path: '/d' } } },
      422,
      /^mounts\.persistent\.size must not be less than 10/,
    ],
    [
      'persistent mount unknown property',
      { mounts: { persistent: { size: 20, path: '/d', ssd: true } } },
      422,
      /^mounts\.persistent\.ssd.*should not exist/,
    ],
    [
      'network mount without path',
      { mounts: { network: [{ volumeId: 'v' }] } },
      422,
      /^mounts\.network\.0\.path /,
    ],
    [
      'network mount without volumeId',
      { mounts: { network: [{ path: '/n' }] } },
      422,
      /^mounts\.network\.0\.volumeId /,
    ],
    [
      'two network mounts',
      {
        mounts: {
          network: [
            { volumeId: 'a', path: '/a' },
            { volumeId: 'b', path: '/b' },
          ],
        },
      },
      422,
      /^mounts\.network must contain no more than 1/,
    ],
    [
      'network mount of an unknown volume',
      { mounts: { network: [{ volumeId: 'nope', path: '/n' }] } },
      422,
      /^mounts\.network\.0\.volumeId must be the id of one of your network volumes/,
    ],
  ];

  it.each(cases.map(([label, ...rest]) => [`${label} → ${rest[1]}`, ...rest] as const))(
    '%s',
    async (_label, patch, status, errorPattern) => {
      const before = await sql<{ n: string }>(db.url, 'SELECT count(*) AS n FROM reservations');
      const response = await api(gateway, alice.key, 'POST', '/v2/clusters', merge(VALID, patch));
      expectProblem(response, status, errorPattern);
      const after = await sql<{ n: string }>(db.url, 'SELECT count(*) AS n FROM reservations');
      expect(after[0].n).toBe(before[0].n);
    },
  );

  it("refuses another user's network volume (422 naming the field)", async () => {
    const response = await api(gateway, alice.key, 'POST', '/v2/clusters', {
      ...VALID,
      mounts: { network: [{ volumeId: bobVolume.id, path: '/data' }] },
    });
    expectProblem(
      response,
      422,
      /^mounts\.network\.0\.volumeId must be the id of one of your network volumes/,
    );
  });

  it('refuses a network volume outside the requested data centers (422)', async () => {
    const response = await api(gateway, alice.key, 'POST', '/v2/clusters', {
      ...VALID,
      dataCenterIds: ['US-TX-3'],
      mounts: { network: [{ volumeId: aliceVolume.id, path: '/data' }] },
    });
    expectProblem(
      response,
      422,
      /^mounts\.network\.0\.volumeId: network volume \S+ is in EU-RO-1, which is not among dataCenterIds/,
    );
  });

  it('answers 409 naming the GPU type, the GPUs asked for and the data centers considered', async () => {
    const response = await api(gateway, alice.key, 'POST', '/v2/clusters', {
      ...VALID,
      compute: { gpuTypeId: A100, gpuCountPerPod: 8, podCount: 5 },
    });
    const problem = expectProblem(response, 409);
    expect(problem.detail).toContain(A100);
    expect(problem.detail).toContain('40 GPUs');
    expect(problem.detail).toContain('EU-CZ-1, EU-RO-1, US-TX-3');
    const preferred = await api(gateway, alice.key, 'POST', '/v2/clusters', {
      ...VALID,
      dataCenterIds: ['EU-RO-1'],
      compute: { gpuTypeId: A100, gpuCountPerPod: 8, podCount: 3 },
    });
    expect(expectProblem(preferred, 409).detail).toMatch(/considered: EU-RO-1$/);
  });

  it('needs a bearer key (401)', async () => {
    expectProblem(await api(gateway, null, 'POST', '/v2/clusters', VALID), 401);
    expectProblem(await api(gateway, 'cpk_nope', 'GET', '/v2/clusters'), 401);
  });
});

describe('catalog', () => {
  it('lists GPU types with maxCount and live availability', async () => {
    const response = await api<GpuTypeView[]>(gateway, alice.key, 'GET', '/v2/catalog/gpus');
    expect(response.status).toBe(200);
    const a100 = response.body.find((g) => g.id === A100)!;
    expect(a100).toMatchObject({ displayName: 'A100 PCIe', memoryInGb: 80, maxCount: 8, tier: 'AMPERE_80' });
    expect(a100.availability).toMatchObject({ totalGpus: 48, hosts: 6, maxFreeOnOneHost: 8 });
    expect(a100.availability.dataCenterIds.sort()).toEqual(['EU-RO-1', 'US-TX-3']);
  });

  it('lists data centers with availability per GPU type', async () => {
    const response = await api<
      { id: string; region: string; gpuAvailability: { gpuTypeId: string; totalGpus: number }[] }[]
    >(gateway, alice.key, 'GET', '/v2/catalog/datacenters');
    expect(response.status).toBe(200);
    const cz = response.body.find((d) => d.id === 'EU-CZ-1')!;
    expect(cz.region).toBe('CZ');
    expect(cz.gpuAvailability).toEqual([expect.objectContaining({ gpuTypeId: H100, totalGpus: 16 })]);
  });
});

describe('SSH keys', () => {
  it('registers, lists and deletes the account keys', async () => {
    const line = sshPublicKey('carol@laptop');
    const created = await api<SshKeyView>(gateway, bob.key, 'POST', '/v1/user/ssh-keys', { publicKey: line });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'carol@laptop', type: 'ssh-ed25519', publicKey: line });
    expect(created.body.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expectProblem(await api(gateway, bob.key, 'POST', '/v1/user/ssh-keys', { publicKey: line }), 409);
    expectProblem(
      await api(gateway, bob.key, 'POST', '/v1/user/ssh-keys', { publicKey: 'ssh-ed25519 nope' }),
      422,
      /^publicKey/,
    );
    expectProblem(
      await api(gateway, bob.key, 'POST', '/v1/user/ssh-keys', {
        publicKey: line.replace('ssh-ed25519', 'ssh-rsa'),
      }),
      422,
      /^publicKey/,
    );
    expectProblem(
      await api(gateway, bob.key, 'POST', '/v1/user/ssh-keys', { publicKey: line, colour: 'x' }),
      422,
      /^colour/,
    );
    const list = await api<SshKeyView[]>(gateway, bob.key, 'GET', '/v1/user/ssh-keys');
    expect(list.body.map((k) => k.id)).toEqual([created.body.id]);
    expectProblem(await api(gateway, alice.key, 'DELETE', `/v1/user/ssh-keys/${created.body.id}`), 403);
    expect((await api(gateway, bob.key, 'DELETE', `/v1/user/ssh-keys/${created.body.id}`)).status).toBe(204);
    expectProblem(await api(gateway, bob.key, 'DELETE', `/v1/user/ssh-keys/${created.body.id}`), 404);
  });
});

describe('network volumes', () => {
  it('creates, lists, gets; validates; keeps users apart', async () => {
    expect(aliceVolume).toMatchObject({ name: 'data', size: 100, dataCenterId: 'EU-RO-1' });
    expect((await api<NetworkVolumeView[]>(gateway, alice.key, 'GET', '/v1/networkvolumes')).body).toEqual([
      aliceVolume,
    ]);
    expect((await api(gateway, alice.key, 'GET', `/v1/networkvolumes/${aliceVolume.id}`)).body).toEqual(
      aliceVolume,
    );
    expectProblem(await api(gateway, alice.key, 'GET', `/v1/networkvolumes/${bobVolume.id}`), 403);
    expectProblem(await api(gateway, alice.key, 'GET', '/v1/networkvolumes/nope'), 404);
    const body = { name: 'x', size: 10, dataCenterId: 'EU-RO-1' };
    expectProblem(
      await api(gateway, alice.key, 'POST', '/v1/networkvolumes', { ...body, size: 0 }),
      422,
      /^size must not be less than 1/,
    );
    expectProblem(
      await api(gateway, alice.key, 'POST', '/v1/networkvolumes', { ...body, dataCenterId: 'MARS-1' }),
      422,
      /^dataCenterId must be a data center id/,
    );
    expectProblem(
      await api(gateway, alice.key, 'POST', '/v1/networkvolumes', { ...body, type: 'ssd' }),
      422,
      /^type.*should not exist/,
    );
    expectProblem(
      await api(gateway, alice.key, 'POST', '/v1/networkvolumes', { size: 10, dataCenterId: 'EU-RO-1' }),
      422,
      /^name /,
    );
  });
});

describe('a cluster from create to delete', () => {
  it('places, follows member statuses, and gives everything back', async () => {
    const key = sshPublicKey('alice@laptop');
    expect((await api(gateway, alice.key, 'POST', '/v1/user/ssh-keys', { publicKey: key })).status).toBe(201);
    const a100Before = await freeGpus(A100);

    const created = await api<ClusterView>(gateway, alice.key, 'POST', '/v2/clusters', {
      name: 'ray',
      type: 'RAY',
      compute: { gpuTypeId: A100, gpuCountPerPod: 2, podCount: 3 },
      dataCenterIds: ['EU-RO-1', 'US-TX-3'],
      startSsh: true,
      startJupyter: true,
      env: { HF_HOME: '/cache' },
      ports: ['8000/http'],
      mounts: { network: [{ volumeId: aliceVolume.id, path: '/workspace' }] },
    });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    const cluster = created.body;
    expect(Object.keys(cluster).sort()).toEqual(
      ['compute', 'createdAt', 'dataCenterId', 'id', 'name', 'network', 'pods', 'primary', 'type'].sort(),
    );
    expect(cluster).toMatchObject({
      name: 'ray',
      type: 'RAY',
      compute: { gpuTypeId: A100, gpuCountPerPod: 2, podCount: 3 },
      dataCenterId: 'EU-RO-1',
      pods: { total: 3, byStatus: { PROVISIONING: 3 } },
      network: { vxlanPort: 4789 },
      primary: { status: 'PROVISIONING' },
    });
    expect(cluster.primary).not.toHaveProperty('sshEndpoint');
    expect(cluster.network!.cidr).toMatch(/^10\.128\.\d+\.\d+\/28$/);
    expect(cluster.network!.vxlanId).toBeGreaterThanOrEqual(1);
    expect(await freeGpus(A100)).toBe(a100Before - 6);

    expect((await api(gateway, alice.key, 'GET', `/v2/clusters/${cluster.id}`)).body).toEqual(cluster);
    // RunPod's ListClustersResponse: wrapped, as /v2/pods is.
    const listed = await api<ClusterList>(gateway, alice.key, 'GET', '/v2/clusters');
    expect(listed.body.clusters.map((c) => c.id)).toContain(cluster.id);
    expectProblem(await api(gateway, bob.key, 'GET', `/v2/clusters/${cluster.id}`), 403);
    expectProblem(await api(gateway, bob.key, 'GET', '/v2/clusters/nope'), 404);

    // Rename (the MCP server's update-cluster): the name only; compute, type and container are fixed.
    const renamed = await api<ClusterView>(gateway, alice.key, 'PATCH', `/v2/clusters/${cluster.id}`, {
      name: 'renamed',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...cluster, name: 'renamed' });
    expect((await api<ClusterView>(gateway, alice.key, 'GET', `/v2/clusters/${cluster.id}`)).body.name).toBe(
      'renamed',
    );
    const resize = await api(gateway, alice.key, 'PATCH', `/v2/clusters/${cluster.id}`, {
      name: 'bigger',
      compute: { ...cluster.compute, podCount: 4 },
    });
    expectProblem(resize, 422);
    expect((resize.body as { errors: string[] }).errors).toEqual([
      'compute is fixed at creation and cannot change: this PATCH only renames the cluster (name)',
    ]);
    expectProblem(await api(gateway, alice.key, 'PATCH', `/v2/clusters/${cluster.id}`, {}), 422);
    expectProblem(await api(gateway, bob.key, 'PATCH', `/v2/clusters/${cluster.id}`, { name: 'x' }), 403);
    expectProblem(await api(gateway, alice.key, 'PATCH', '/v2/clusters/nope', { name: 'x' }), 404);

    // Members as v2 pods (here the scheduler's records: no pod-lifecycle runs in this file).
    const { pods: members } = (
      await api<PodV2List>(gateway, alice.key, 'GET', `/v2/clusters/${cluster.id}/pods`)
    ).body;
    expect(members.map((m) => [m.cluster?.rank, m.cluster?.role])).toEqual([
      [0, 'head'],
      [1, 'worker'],
      [2, 'worker'],
    ]);
    expect(members[0].id).toBe(cluster.primary!.podId);
    expect(members[0]).toMatchObject({ gpu: { id: A100, count: 2 }, cpu: null, actions: [] });
    const [primaryIp] = cluster.network!.cidr.split('/');
    const head = primaryIp.replace(/\d+$/, (n) => String(Number(n) + 1));
    for (const member of members) {
      const rank = member.cluster!.rank!;
      expect(member.dataCenterId).toBe('EU-RO-1');
      expect(member.ports).toEqual(['8000/http', '22/tcp', '8888/http']);
      expect(Object.keys(member.portMappings).sort()).toEqual(['22', '8000', '8888']);
      expect(member.env).toMatchObject({
        HF_HOME: '/cache',
        PUBLIC_KEY: key,
        RAY_HEAD_ADDR: `${head}:6379`,
        MASTER_ADDR: head,
        NODE_RANK: String(rank),
        NUM_NODES: '3',
        WORLD_SIZE: '6',
      });
      // In clear for alice's full key; a read key of hers gets the masks (below).
      expect(member.env.JUPYTER_PASSWORD).toMatch(/^[a-z0-9]{24}$/);
      expect(member.cluster!.ip).toBe(head.replace(/\d+$/, (n) => String(Number(n) + rank)));
    }

    const readKey = await createKey(db.url, 'alice', 'read');
    const read = await api<PodV2List>(gateway, readKey.key, 'GET', `/v2/clusters/${cluster.id}/pods`);
    expect(read.body.pods[0].env).toMatchObject({ JUPYTER_PASSWORD: '********', PUBLIC_KEY: '********' });

    // The volume is mounted: it cannot be deleted.
    expectProblem(await api(gateway, alice.key, 'DELETE', `/v1/networkvolumes/${aliceVolume.id}`), 400);

    // pod-lifecycle reports the members RUNNING (here: the test, publishing its events).
    const later = (ms: number) => new Date(Date.now() + ms).toISOString();
    await publishPodStatus(system.natsPrefix, {
      podId: members[1].id,
      status: 'STARTING',
      at: later(1),
    });
    for (const m of members) {
      await publishPodStatus(system.natsPrefix, {
        podId: m.id,
        status: 'RUNNING',
        at: later(2),
      });
    }
    const running = await eventually(
      async () => {
        const view = (await api<ClusterView>(gateway, alice.key, 'GET', `/v2/clusters/${cluster.id}`)).body;
        return view.pods.byStatus.RUNNING === 3 ? view : undefined;
      },
      15_000,
      'three RUNNING members',
    );
    expect(running.pods).toEqual({ total: 3, byStatus: { RUNNING: 3 } });
    expect(running.primary).toEqual({
      podId: members[0].id,
      status: 'RUNNING',
      sshEndpoint: `${members[0].publicIp}:${members[0].portMappings['22']}`,
    });

    // Delete: 204, the VXLAN id and CIDR are free at once, the GPUs as members terminate.
    expect((await api(gateway, alice.key, 'DELETE', `/v2/clusters/${cluster.id}`)).status).toBe(204);
    expectProblem(await api(gateway, alice.key, 'GET', `/v2/clusters/${cluster.id}`), 404);
    expectProblem(await api(gateway, alice.key, 'DELETE', `/v2/clusters/${cluster.id}`), 404);
    const live = await sql(
      db.url,
      'SELECT 1 FROM clusters WHERE deleted_at IS NULL AND (vxlan_id = $1 OR cidr = $2::cidr)',
      [cluster.network!.vxlanId, cluster.network!.cidr],
    );
    expect(live).toHaveLength(0);
    expect(await freeGpus(A100)).toBe(a100Before - 6);

    const terminatedIds: string[] = [];
    for (const m of members) {
      terminatedIds.push(
        await publishPodStatus(system.natsPrefix, {
          podId: m.id,
          status: 'TERMINATED',
          at: later(3),
        }),
      );
    }
    await eventually(
      async () => ((await freeGpus(A100)) === a100Before ? true : undefined),
      15_000,
      'GPUs back',
    );
    // The same event again, and another TERMINATED for the same pod: nothing is freed twice.
    await publishPodStatus(
      system.natsPrefix,
      { podId: members[0].id, status: 'TERMINATED', at: later(4) },
      terminatedIds[0],
    );
    await publishPodStatus(system.natsPrefix, {
      podId: members[0].id,
      status: 'TERMINATED',
      at: later(5),
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(await freeGpus(A100)).toBe(a100Before);
    const ledger = await sql<{ bad: string }>(
      db.url,
      `SELECT count(*) AS bad FROM hosts h
        WHERE h.free_gpus + coalesce((SELECT sum(gpu_count) FROM reservations r WHERE r.host_id = h.id), 0) <> h.gpu_count
           OR h.free_ports + (SELECT count(*) FROM host_ports p WHERE p.host_id = h.id) <> h.port_end - h.port_start + 1`,
    );
    expect(ledger[0].bad).toBe('0');

    // The volume is free now; a new cluster gets the same VXLAN id and CIDR back.
    expect((await api(gateway, alice.key, 'DELETE', `/v1/networkvolumes/${aliceVolume.id}`)).status).toBe(
      204,
    );
    const again = await api<ClusterView>(gateway, alice.key, 'POST', '/v2/clusters', {
      ...VALID,
      dataCenterIds: ['EU-RO-1'],
    });
    expect(again.status).toBe(201);
    expect(again.body.network).toEqual(cluster.network);
  });
});
