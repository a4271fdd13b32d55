import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { PodStatus, type PodV2View, type PodView } from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { graphqlClient } from './graphql.e2e-helpers.js';
import { startPodsSystem, stopPodsSystem } from './pods-system.e2e-helpers.js';
import {
  PlacementStandIn,
  announceClusterMember,
  expectProblem,
  getPod,
  statusEvents,
  waitForPod,
  type Call,
  type Reply,
} from './pods.e2e-helpers.js';

const { Provisioning, Starting, Running, Exited, Terminated } = PodStatus;

/**
 * REST v1's pod edit (`PATCH /v1/pods/{id}`, `POST /v1/pods/{id}/update`) and `POST /v1/pods/{id}/restart`
 * against the gateway and pod-lifecycle (simulated runtime, real Postgres and NATS, placement by the stand-in):
 * a container change restarts a RUNNING pod and its new ports are mapped anew, a rename does not, a stopped pod
 * keeps the change for its next start; v1 errors carry `message`; pods made on /v2 and GraphQL edit the same.
 */
describe('pods, REST v1: edit and restart', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;
  let aliceId: string;
  let aliceKey: string;

  async function create(name: string, extra: Record<string, unknown> = {}): Promise<PodView> {
    const reply = await alice<PodView>('POST', '/v1/pods', {
      name,
      imageName: 'runpod/base:0.6.2',
      gpuTypeId: 'NVIDIA RTX A4000',
      ports: ['22/tcp'],
      env: { MODEL: 'llama', HF_TOKEN: 'hf_secret' },
      ...extra,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  }
  const running = async (name: string) => waitForPod(alice, (await create(name)).id, Running);
  const patch = (id: string, body: unknown, call: Call = alice) =>
    call<PodView & { message?: string }>('PATCH', `/v1/pods/${id}`, body);
  const lastReserve = (podId: string) => placement.reserves.filter((r) => r.podId === podId).at(-1);

  /** A v1 error: problem+json with the `message` runpodctl prints. */
  function expectV1Error<T>(reply: Reply<T>, status: number, message: RegExp): void {
    expectProblem(reply, status);
    expect((reply.body as { message?: unknown }).message).toMatch(message);
  }

  /** What pod-lifecycle stored: the env unmasked, and the container disk's incarnation. */
  async function stored(podId: string): Promise<{ env: Record<string, string>; disk_epoch: number }> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = await client.query('SELECT env, disk_epoch FROM pod_lifecycle.pods WHERE id = $1', [
        podId,
      ]);
      return rows.rows[0] as { env: Record<string, string>; disk_epoch: number };
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    ({ db, system, placement, alice, aliceId, bob, aliceKey } = await startPodsSystem('pods_v1_update'));
  });

  afterAll(() => stopPodsSystem({ db, system, placement }));

  it('a container change restarts a RUNNING pod: new image, env and ports (mapped anew), wiped disk', async () => {
    const pod = await running('edit-me');
    const edited = await patch(pod.id, {
      imageName: 'runpod/base:0.7.0',
      ports: ['22/tcp', '8888/http'],
      containerDiskInGb: 30,
      // As runpodctl sends it: the env it read (secret masked) merged with the change.
      env: { ...pod.env, MODEL: 'mistral' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      status: Starting,
      imageName: 'runpod/base:0.7.0',
      ports: ['22/tcp', '8888/http'],
      containerDiskInGb: 30,
      env: { MODEL: 'mistral', HF_TOKEN: '********' },
      statusReason: 'restarted: its container was edited',
    });
    expect(lastReserve(pod.id)).toMatchObject({
      hostId: pod.machineId,
      ports: ['22/tcp', '8888/http'],
      reassignPorts: true,
    });
    expect(Object.keys(edited.body.portMappings).sort()).toEqual(['22', '8888']);
    expect(await stored(pod.id)).toEqual({ env: { MODEL: 'mistral', HF_TOKEN: 'hf_secret' }, disk_epoch: 1 });
    await waitForPod(alice, pod.id, Running);
    expect((await statusEvents(system.natsPrefix, pod.id)).slice(-2)).toEqual([
      { status: Starting, previousStatus: Running },
      { status: Running, previousStatus: Starting },
    ]);
  });

  it('a rename, or fields sent back unchanged, restart nothing; POST /update is the same edit', async () => {
    const pod = await running('rename-me');
    const reserves = placement.reserves.length;
    const renamed = await alice<PodView>('POST', `/v1/pods/${pod.id}/update`, {
      name: 'renamed',
      imageName: pod.imageName,
      ports: pod.ports,
      env: pod.env,
      volumeMountPath: '/workspace',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', status: Running, volumeMountPath: '/workspace' });
    expect(placement.reserves.length).toBe(reserves);
    expect(await getPod(alice, pod.id)).toMatchObject({ name: 'renamed', status: Running });
  });

  it('a stopped pod keeps the change for its next start; a starting one refuses it (409), a rename not', async () => {
    const pod = await running('stopped');
    expect((await alice('POST', `/v1/pods/${pod.id}/stop`)).status).toBe(200);
    const edited = await patch(pod.id, { imageName: 'alpine:3', ports: ['8000/http'] });
    expect(edited.body).toMatchObject({ status: Exited, imageName: 'alpine:3', ports: ['8000/http'] });
    const started = await alice<PodView>('POST', `/v1/pods/${pod.id}/start`);
    expect(started.body).toMatchObject({ status: Starting, imageName: 'alpine:3' });
    expect(lastReserve(pod.id)).toMatchObject({ ports: ['8000/http'], hostId: pod.machineId });

    const slow = await waitForPod(
      alice,
      (await create('slow', { env: { SIM_PROVISION_MS: '600000' } })).id,
      Provisioning,
    );
    expectV1Error(await patch(slow.id, { imageName: 'alpine:3' }), 409, /while it is PROVISIONING/);
    expect((await patch(slow.id, { name: 'slow-2' })).body).toMatchObject({
      name: 'slow-2',
      status: Provisioning,
    });
  });

  it('restart answers the pod (200, JSON) as reset does, and 409 with a message once terminated', async () => {
    const pod = await running('restart-me');
    const restarted = await alice<PodView>('POST', `/v1/pods/${pod.id}/restart`);
    expect(restarted.status).toBe(200);
    expect(restarted.contentType).toMatch(/^application\/json/);
    expect(restarted.body).toMatchObject({ id: pod.id, status: Starting, statusReason: 'reset by the user' });
    await waitForPod(alice, pod.id, Running);
    expect((await alice('DELETE', `/v1/pods/${pod.id}`)).status).toBe(204);
    expectV1Error(await alice('POST', `/v1/pods/${pod.id}/restart`), 409, /TERMINATED/);
    expectV1Error(await patch(pod.id, { name: 'x' }), 409, /TERMINATED/);
    expect((await getPod(alice, pod.id)).status).toBe(Terminated);
  });

  it("answers 422 for a bad body, 404 unknown, 403 another user's, 409 a cluster member; nothing changes", async () => {
    const pod = await running('errors');
    for (const [body, message] of [
      [{ volumeInGb: 20 }, /property volumeInGb should not exist/],
      [{ containerDiskInGb: 0 }, /containerDiskInGb must not be less than 1/],
      [{ ports: ['22'] }, /each port must be/],
      [{ name: '' }, /name should not be empty/],
      [{ env: { 'BAD NAME': 'x' } }, /env/],
    ] as const) {
      expectV1Error(await patch(pod.id, body), 422, message);
    }
    expectV1Error(await patch(pod.id, { containerRegistryAuthId: 'nope' }), 404, /nope/);
    expectV1Error(await patch('nope', { name: 'x' }), 404, /pod nope does not exist/);
    expectV1Error(await patch(pod.id, { name: 'x' }, bob), 403, /belongs to another user/);
    expectV1Error(await bob('POST', `/v1/pods/${pod.id}/restart`), 403, /belongs to another user/);
    expectV1Error(await alice('POST', '/v1/pods/nope/restart'), 404, /nope/);
    expect(await getPod(alice, pod.id)).toMatchObject({ name: 'errors', imageName: 'runpod/base:0.6.2' });

    const memberId = await announceClusterMember(system, alice, 'clv1edit', aliceId);
    expectV1Error(await patch(memberId, { imageName: 'alpine:3' }), 409, /member of cluster clv1edit/);
  });

  it('edits pods made on /v2 and GraphQL; /v2 reads the change', async () => {
    const v2 = await alice<PodV2View>('POST', '/v2/pods', {
      name: 'from-v2',
      image: 'runpod/base:0.6.2',
      gpu: { id: 'NVIDIA RTX A4000' },
      mounts: { network: [{ volumeId: 'vol-1', path: '/data' }] },
    });
    expect(v2.status).toBe(201);
    expect((await patch(v2.body.id, { volumeMountPath: '/weights', name: 'v2-edited' })).status).toBe(200);
    expect((await alice<PodV2View>('GET', `/v2/pods/${v2.body.id}`)).body).toMatchObject({
      name: 'v2-edited',
      networkVolumeId: 'vol-1',
      volumeMountPath: '/weights',
    });

    const gql = await graphqlClient(
      system,
      aliceKey,
    )<{ podFindAndDeployOnDemand: { id: string } }>(
      'mutation { podFindAndDeployOnDemand(input: { name: "from-gql", imageName: "runpod/base:0.6.2", ' +
        'gpuTypeId: "NVIDIA RTX A4000", gpuCount: 1, cloudType: ALL }) { id } }',
    );
    expect(gql.body.errors).toBeUndefined();
    const id = gql.body.data!.podFindAndDeployOnDemand.id;
    await waitForPod(alice, id, Running);
    expect((await patch(id, { dockerArgs: 'sleep infinity' })).body).toMatchObject({
      status: Starting,
      dockerArgs: 'sleep infinity',
    });
  });
});
