import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { PodStatus, type PodV2View } from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { startPodsSystem, stopPodsSystem } from './pods-system.e2e-helpers.js';
import {
  PlacementStandIn,
  announceClusterMember,
  expectProblem,
  getPod,
  waitForPod,
  type Call,
} from './pods.e2e-helpers.js';

/**
 * `PATCH /v2/pods/{id}` against the gateway and pod-lifecycle (simulated runtime, real Postgres and NATS): a
 * rename, a container change (MCP update-pod: image, env, ...) restarting a RUNNING pod, the interface's mount
 * update rules, each refusal a 400 that changes nothing; 409 for a cluster
 * member or a terminated pod; the change read back through /v1.
 */
describe('pods, management API v2: PATCH', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;
  let aliceId: string;

  async function create(
    name: string,
    mounts?: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): Promise<PodV2View> {
    const reply = await alice<PodV2View>('POST', '/v2/pods', {
      name,
      image: 'runpod/base:0.6.2',
      gpu: { id: 'NVIDIA RTX A4000' },
      ...(mounts ? { mounts } : {}),
      ...extra,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  }
  const patch = (id: string, body: unknown, call: Call = alice) =>
    call<PodV2View & Record<string, unknown>>('PATCH', `/v2/pods/${id}`, body);

  /** The env pod-lifecycle stored (unmasked, as the container gets it). */
  async function storedEnv(podId: string): Promise<Record<string, string>> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = await client.query('SELECT env FROM pod_lifecycle.pods WHERE id = $1', [podId]);
      return (rows.rows[0] as { env: Record<string, string> }).env;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    ({ db, system, placement, alice, aliceId, bob } = await startPodsSystem('pods_v2_update'));
  });

  it('image, env, args, disk and ports: a RUNNING pod restarts with them (200); a masked value keeps its own', async () => {
    const created = await create('container', undefined, {
      env: { MODEL: 'llama', HF_TOKEN: 'hf_secret' },
      ports: ['22/tcp'],
    });
    const pod = await waitForPod(alice, created.id, PodStatus.Running);
    const edited = await patch(pod.id, {
      image: 'runpod/base:0.7.0',
      args: 'python serve.py',
      disk: 30,
      ports: ['22/tcp', '8888/http'],
      // As the MCP server sends it back: the env it read (secret masked) with the change.
      env: { ...created.env, MODEL: 'mistral' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      status: PodStatus.Starting,
      statusReason: 'restarted: its container was edited',
      image: 'runpod/base:0.7.0',
      args: 'python serve.py',
      disk: 30,
      ports: ['22/tcp', '8888/http'],
      env: { MODEL: 'mistral', HF_TOKEN: '********' },
    });
    expect(await storedEnv(pod.id)).toEqual({ MODEL: 'mistral', HF_TOKEN: 'hf_secret' });
    await waitForPod(alice, pod.id, PodStatus.Running);
    // The same values again change nothing, so nothing restarts.
    const again = await patch(pod.id, { image: 'runpod/base:0.7.0', env: edited.body.env });
    expect(again.body).toMatchObject({ status: PodStatus.Running });
    expect(await getPod(alice, pod.id)).toMatchObject({
      imageName: 'runpod/base:0.7.0',
      dockerArgs: 'python serve.py',
    });
  });

  afterAll(() => stopPodsSystem({ db, system, placement }));

  it('renames, and moves a network mount to another path (200); /v1 reads the change', async () => {
    const pod = await create('net', { network: [{ volumeId: 'vol-1', path: '/data' }] });
    const renamed = await patch(pod.id, { name: 'net-2', mounts: {} });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'net-2', networkVolumeId: 'vol-1', volumeMountPath: '/data' });
    const moved = await patch(pod.id, { mounts: { network: [{ volumeId: 'vol-1', path: '/weights' }] } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ networkVolumeId: 'vol-1', volumeMountPath: '/weights' });
    expect(await getPod(alice, pod.id)).toMatchObject({ name: 'net-2', volumeMountPath: '/weights' });
  });

  it('refuses what the interface refuses with 400 and changes nothing', async () => {
    const net = await create('net-rules', { network: [{ volumeId: 'vol-1', path: '/data' }] });
    const persistent = await create('persistent-rules', { persistent: { size: 20, path: '/p' } });
    const bare = await create('bare');
    const cases: [string, unknown, RegExp][] = [
      [net.id, { mounts: { network: [] } }, /cannot be emptied/],
      [net.id, { mounts: { network: [{ volumeId: 'vol-2', path: '/data' }] } }, /cannot change/],
      [net.id, { mounts: { persistent: { size: 20, path: '/p' } } }, /without a persistent mount/],
      [
        persistent.id,
        { mounts: { network: [{ volumeId: 'vol-1', path: '/n' }] } },
        /without a network mount/,
      ],
      [bare.id, { mounts: { persistent: { size: 20, path: '/p' } } }, /without a persistent mount/],
      [bare.id, { mounts: { network: [{ volumeId: 'vol-1', path: '/n' }] } }, /without a network mount/],
      [
        net.id,
        { mounts: { persistent: { size: 20, path: '/p' }, network: [{ volumeId: 'vol-1', path: '/n' }] } },
        /not both/,
      ],
    ];
    for (const [id, body, detail] of cases) expectProblem(await patch(id, body), 400, detail);
    expect(await getPod(alice, net.id)).toMatchObject({ networkVolumeId: 'vol-1', volumeMountPath: '/data' });
    const moved = await patch(persistent.id, { mounts: { persistent: { size: 20, path: '/q' } } });
    expect(moved.body.volumeMountPath).toBe('/q');
  });

  it("answers 422 for an invalid body, 404 unknown, 403 another user's", async () => {
    const pod = await create('errors');
    for (const body of [
      { name: '' },
      { image: '' },
      { disk: 0 },
      { env: { 'BAD NAME': 'x' } },
      { mounts: { network: [{ volumeId: 'vol-1' }] } },
      { mounts: { persistent: { size: 5, path: '/p' } } },
    ]) {
      expectProblem(await patch(pod.id, body), 422);
    }
    expectProblem(await patch('nope', { name: 'x' }), 404);
    expectProblem(await patch(pod.id, { name: 'x' }, bob), 403);
    expect((await getPod(alice, pod.id)).name).toBe('errors');
  });

  it('answers 409 for a cluster member and for a terminated pod', async () => {
    const memberId = await announceClusterMember(system, alice, 'clpatch', aliceId);
    expectProblem(await patch(memberId, { name: 'x' }), 409, /member of cluster clpatch/);

    const pod = await create('gone');
    expect((await alice('DELETE', `/v2/pods/${pod.id}`)).status).toBe(204);
    expect((await getPod(alice, pod.id)).status).toBe(PodStatus.Terminated);
    expectProblem(await patch(pod.id, { name: 'x' }), 409, /TERMINATED/);
  });
});
