import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { PodStatus, type PodV2List, type PodV2View, type PodView } from '@app/contracts';
import { createKey } from '../support/accounts.js';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { startPodsSystem, stopPodsSystem } from './pods-system.e2e-helpers.js';
import { sshPublicKey } from './clusters-fixtures.js';
import { graphqlClient } from './graphql.e2e-helpers.js';
import {
  PlacementStandIn,
  announceClusterMember,
  client,
  expectProblem,
  getPod,
  waitForPod,
  type Call,
} from './pods.e2e-helpers.js';

const { Provisioning, Starting, Running, Exited, Error: Err, Terminated } = PodStatus;

/**
 * The management API v2's pod routes (`/v2/pods`) against the running gateway and pod-lifecycle (simulated
 * runtime, real Postgres and NATS, placement from the stand-in): the same pods /v1 serves, with RunPod's v2
 * names, the published `actions` and their 409s, cluster members left out of the list and refused a delete.
 */
describe('pods, management API v2', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;
  let aliceId: string;

  const v2Body = (name: string, env: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
    name,
    image: 'runpod/base:0.6.2',
    gpu: { id: 'NVIDIA RTX A4000', count: 1 },
    disk: 10,
    ports: ['22/tcp', '8888/http'],
    env: { MODEL: 'llama', ...env },
    ...extra,
  });

  async function createV2(name: string, env: Record<string, string> = {}): Promise<PodV2View> {
    const reply = await alice<PodV2View>('POST', '/v2/pods', v2Body(name, env));
    expect(reply.status).toBe(201);
    return reply.body;
  }

  const getV2 = async (id: string) => (await alice<PodV2View>('GET', `/v2/pods/${id}`)).body;
  const act = (id: string, action: string, call: Call = alice) =>
    call<PodV2View & Record<string, unknown>>('POST', `/v2/pods/${id}/action`, { action });

  beforeAll(async () => {
    ({ db, system, placement, alice, aliceId, bob } = await startPodsSystem('pods_v2'));
  });

  afterAll(() => stopPodsSystem({ db, system, placement }));

  it('creates a GPU pod: 201 PROVISIONING with v2 names, then RUNNING with runtime ports and ssh.direct', async () => {
    const created = await alice<PodV2View>('POST', '/v2/pods', v2Body('v2-first', { HF_TOKEN: 'hf_secret' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'v2-first',
      status: Provisioning,
      desiredStatus: Running,
      actions: ['stop', 'terminate'],
      image: 'runpod/base:0.6.2',
      args: null,
      disk: 10,
      env: { MODEL: 'llama', HF_TOKEN: '********' },
      ports: ['22/tcp', '8888/http'],
      gpu: { id: 'NVIDIA RTX A4000', count: 1 },
      cpu: null,
      dataCenterId: 'EU-TEST-1',
      runtime: null,
      ssh: { direct: null },
      cluster: null,
    });
    expect(created.text).not.toContain('hf_secret');
    const id = created.body.id;
    await waitForPod(alice, id, Running);
    const pod = await getV2(id);
    const ip = pod.publicIp!;
    expect(pod).toMatchObject({ status: Running, actions: ['stop', 'restart', 'terminate'] });
    expect(pod.runtime!.ports).toEqual([
      { private: 22, public: pod.portMappings['22'], ip, type: 'tcp' },
      { private: 8888, public: pod.portMappings['8888'], ip, type: 'http' },
    ]);
    expect(pod.ssh.direct).toEqual({
      ip,
      port: pod.portMappings['22'],
      command: `ssh root@${ip} -p ${pod.portMappings['22']}`,
    });
    // The same record through /v1, which carries the v2 actions too.
    expect(await getPod(alice, id)).toMatchObject({ id, status: Running, actions: pod.actions });
  });

  it('creates a CPU pod with a network mount; lists standalone pods wrapped in {pods}', async () => {
    const reply = await alice<PodV2View>('POST', '/v2/pods', {
      name: 'v2-cpu',
      image: 'alpine:3',
      cpu: { id: 'cpu3c', vcpuCount: 2 },
      mounts: { network: [{ volumeId: 'vol-eu', path: '/data' }] },
      cloud: 'SECURE',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      gpu: null,
      cpu: { id: 'cpu3c' },
      networkVolumeId: 'vol-eu',
      volumeMountPath: '/data',
    });
    expect(placement.reserves.find((r) => r.podId === reply.body.id)).toMatchObject({
      cpuTypeId: 'cpu3c',
      gpuCount: 0,
      networkVolumeId: 'vol-eu',
    });
    const list = await alice<PodV2List>('GET', '/v2/pods');
    expect(list.status).toBe(200);
    expect(list.body.pods.map((p) => p.name)).toEqual(expect.arrayContaining(['v2-first', 'v2-cpu']));
    expect((await bob<PodV2List>('GET', '/v2/pods')).body).toEqual({ pods: [] });
  });

  it('startSsh and startJupyter expose 22/tcp and 8888/http and set PUBLIC_KEY and JUPYTER_PASSWORD', async () => {
    const publicKey = sshPublicKey('alice@v2');
    const key = await alice('POST', '/v1/user/ssh-keys', { publicKey });
    expect(key.status).toBe(201);
    const reply = await alice<PodV2View>('POST', '/v2/pods', {
      ...v2Body('v2-access'),
      ports: ['8000/http'],
      startSsh: true,
      startJupyter: true,
    });
    expect(reply.status).toBe(201);
    expect(reply.body.ports).toEqual(['8000/http', '22/tcp', '8888/http']);
    expect(reply.body.env).toEqual({ MODEL: 'llama', PUBLIC_KEY: '********', JUPYTER_PASSWORD: '********' });
    // Its owner reads the generated password with a full key (v2 and v1 alike); a read key of hers gets masks.
    const full = await alice<PodV2View>('GET', `/v2/pods/${reply.body.id}`);
    expect(full.body.env).toEqual({
      MODEL: 'llama',
      PUBLIC_KEY: publicKey,
      JUPYTER_PASSWORD: expect.stringMatching(/^[a-z0-9]{24}$/),
    });
    expect((await getPod(alice, reply.body.id)).env).toEqual(full.body.env);
    const listed = (await alice<PodV2List>('GET', '/v2/pods')).body.pods.find((p) => p.id === reply.body.id);
    expect(listed?.env).toEqual(full.body.env);
    const readKey = (await createKey(db.url, 'alice', 'read')).key;
    const reader = client(system, readKey);
    for (const path of [`/v2/pods/${reply.body.id}`, `/v1/pods/${reply.body.id}`]) {
      expect((await reader<PodV2View>('GET', path)).body.env).toEqual(reply.body.env);
    }
    // GraphQL's pod(input:) alike: in clear for a full key, masked for a read key.
    const jupyter = async (key: string) => {
      const document = `query { pod(input: {podId: "${reply.body.id}"}) { env } }`;
      const answer = await graphqlClient(system, key)<{ pod: { env: string[] } }>(document);
      return answer.body.data?.pod.env.find((e) => e.startsWith('JUPYTER_PASSWORD='));
    };
    const fullKey = (await createKey(db.url, 'alice', 'full')).key;
    expect(await jupyter(fullKey)).toBe(`JUPYTER_PASSWORD=${full.body.env.JUPYTER_PASSWORD}`);
    expect(await jupyter(readKey)).toBe('JUPYTER_PASSWORD=********');
    expect(placement.reserves.find((r) => r.podId === reply.body.id)?.ports).toEqual([
      '8000/http',
      '22/tcp',
      '8888/http',
    ]);
    // A port already exposed is not added twice.
    const again = await alice<PodV2View>('POST', '/v2/pods', { ...v2Body('v2-access-2'), startSsh: true });
    expect(again.body.ports).toEqual(['22/tcp', '8888/http']);
    // No key on the account: refused, as for clusters.
    expectProblem(
      await bob('POST', '/v2/pods', { ...v2Body('no-key'), startSsh: true }),
      400,
      /SSH public key/,
    );
  });

  it('runs the published actions: stop 200, start 200, restart 200, terminate 204; others 409', async () => {
    const { id } = await createV2('v2-actions');
    await waitForPod(alice, id, Running);

    const stopped = await act(id, 'stop');
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({
      id,
      status: Exited,
      actions: ['start', 'terminate'],
      runtime: null,
    });
    // Not published for EXITED: 409 in v2 even where /v1 answers a no-op 200.
    expectProblem(
      await act(id, 'stop'),
      409,
      /cannot stop pod .*: it is EXITED; allowed actions: start, terminate/,
    );
    expectProblem(await act(id, 'restart'), 409, /cannot restart pod/);
    expect((await alice('POST', `/v1/pods/${id}/stop`)).status).toBe(200);

    const started = await act(id, 'start');
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: Starting, actions: ['stop', 'terminate'] });
    expectProblem(await act(id, 'start'), 409, /it is STARTING; allowed actions: stop, terminate/);
    await waitForPod(alice, id, Running);

    const restarted = await act(id, 'restart');
    expect(restarted.status).toBe(200);
    expect(restarted.body.status).toBe(Starting);
    await waitForPod(alice, id, Running);

    const terminated = await act(id, 'terminate');
    expect(terminated.status).toBe(204);
    expect(terminated.text).toBe('');
    expect(await getV2(id)).toMatchObject({ status: Terminated, actions: [] });
    expectProblem(await act(id, 'start'), 409, /no action is allowed any more/);
    expectProblem(await alice('DELETE', `/v2/pods/${id}`), 409, /it is TERMINATED/);
  });

  it('acts across surfaces: created by /v1, stopped by /v2, read by /v1; deleted by /v2', async () => {
    const created = await alice<PodView>('POST', '/v1/pods', {
      name: 'v1-made',
      imageName: 'runpod/base:0.6.2',
      gpuTypeId: 'NVIDIA RTX A4000',
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body.actions).toEqual(['stop', 'terminate']);
    await waitForPod(alice, id, Running);
    expect((await act(id, 'stop')).status).toBe(200);
    expect(await getPod(alice, id)).toMatchObject({
      status: Exited,
      allowedActions: ['start', 'reset', 'terminate'],
    });
    expect((await alice('DELETE', `/v2/pods/${id}`)).status).toBe(204);
    expect((await getPod(alice, id)).status).toBe(Terminated);
  });

  it('offers start and terminate to an ERROR pod, stop only while it is being set up', async () => {
    const erred = await createV2('v2-err', { SIM_FAIL_START: '1' });
    await waitForPod(alice, erred.id, Err);
    expect((await getV2(erred.id)).actions).toEqual(['start', 'terminate']);
    expectProblem(await act(erred.id, 'stop'), 409, /it is ERROR/);

    const slow = await createV2('v2-slow', { SIM_PROVISION_MS: '600000' });
    expectProblem(await act(slow.id, 'restart'), 409, /it is PROVISIONING; allowed actions: stop, terminate/);
    expect((await act(slow.id, 'stop')).body.status).toBe(Exited);
  });

  it('leaves cluster members out unless includeClusterPods=true, and refuses to delete one (409)', async () => {
    const clusterId = `cl${randomUUID().slice(0, 8)}`;
    const memberId = await announceClusterMember(system, alice, clusterId, aliceId, 30000);
    const member = await waitForPod(alice, memberId, Running);
    expect(member.actions).toEqual(['stop', 'restart']);
    expect(await getV2(memberId)).toMatchObject({
      cluster: { id: clusterId, rank: 0, role: 'primary', ip: '10.128.0.1' },
      ssh: { direct: { ip: '198.51.100.1', port: 30000, command: 'ssh root@198.51.100.1 -p 30000' } },
    });

    const names = async (query: string) =>
      (await alice<PodV2List>('GET', `/v2/pods${query}`)).body.pods.map((p) => p.id);
    expect(await names('')).not.toContain(memberId);
    expect(await names('?includeClusterPods=false')).not.toContain(memberId);
    expect(await names('?includeClusterPods=true')).toContain(memberId);

    expectProblem(
      await alice('DELETE', `/v2/pods/${memberId}`),
      409,
      /member of cluster .*delete the cluster/,
    );
    expectProblem(await act(memberId, 'terminate'), 409, /member of cluster/);
    expect((await getPod(alice, memberId)).status).toBe(Running);
    // A member still stops and restarts through v2.
    expect((await act(memberId, 'stop')).body.status).toBe(Exited);
  });

  it("answers 404 for an unknown pod, 403 for another user's, and changes nothing", async () => {
    const { id } = await createV2('v2-private');
    for (const reply of [
      await alice('GET', '/v2/pods/nope'),
      await alice('DELETE', '/v2/pods/nope'),
      await act('nope', 'stop'),
      await alice('GET', '/v2/pods/nope/logs'),
    ]) {
      expectProblem(reply, 404);
    }
    expectProblem(await bob('GET', `/v2/pods/${id}`), 403);
    expectProblem(await act(id, 'terminate', bob), 403);
    expectProblem(await bob('DELETE', `/v2/pods/${id}`), 403);
    expectProblem(await bob('GET', `/v2/pods/${id}/logs`), 403);
    expect((await getPod(alice, id)).status).not.toBe(Terminated);
  });

  it('refuses invalid bodies: 422 for validation, 400 for conflicting mounts; creates nothing', async () => {
    const before = (await alice<PodV2List>('GET', '/v2/pods?includeClusterPods=true')).body.pods.length;
    for (const body of [
      { ...v2Body('x'), imageName: 'legacy-name' },
      { ...v2Body('x'), gpu: { id: 'NVIDIA RTX A4000', count: 0 } },
      { ...v2Body('x'), cpu: { id: 'cpu3c', vcpuCount: 4 } },
      { name: 'x', image: 'alpine:3' },
      { ...v2Body('x'), name: '' },
      { ...v2Body('x'), mounts: { network: [{ volumeId: 'vol-eu' }] } },
      { ...v2Body('x'), cloud: 'MOON' },
      { name: 'x', image: 'alpine:3', cpu: { id: 'cpu3c' } },
    ]) {
      expectProblem(await alice('POST', '/v2/pods', body), 422);
    }
    // pod-lifecycle's own checks name v2's fields for a v2 body, as the DTO's do.
    const noImage = await alice<{ errors: string[] }>('POST', '/v2/pods', { name: 'x', gpu: { id: 'A' } });
    expectProblem(noImage, 422);
    expect(noImage.body.errors).toEqual(['image must be given when no templateId is']);
    const neither = await alice<{ errors: string[] }>('POST', '/v2/pods', { name: 'x', image: 'alpine:3' });
    expect(neither.body.errors).toEqual(['gpu.id is required for a GPU pod; set cpu for a CPU pod']);
    const v1 = await alice<{ errors: string[] }>('POST', '/v1/pods', { name: 'x', gpuTypeId: 'A' });
    expect(v1.body.errors).toEqual(['imageName must be given when no templateId is']);
    expectProblem(
      await alice('POST', '/v2/pods', {
        ...v2Body('x'),
        mounts: { persistent: { size: 20, path: '/p' }, network: [{ volumeId: 'v', path: '/n' }] },
      }),
      400,
      /^mounts\.persistent and mounts\.network: a pod has one volume, set one of them$/,
    );
    expectProblem(
      await alice('POST', '/v2/pods', {
        name: 'x',
        image: 'alpine:3',
        cpu: { id: 'cpu3c', vcpuCount: 2 },
        mounts: { persistent: { size: 20, path: '/p' } },
      }),
      400,
      /CPU pod/,
    );
    const { id } = await createV2('v2-valid');
    for (const body of [{ action: 'reset' }, { action: 'stop', force: true }, {}]) {
      expectProblem(await alice('POST', `/v2/pods/${id}/action`, body), 422);
    }
    const after = (await alice<PodV2List>('GET', '/v2/pods?includeClusterPods=true')).body.pods.length;
    expect(after).toBe(before + 1);
  });

  it('serves the logs route (pod-logs.e2e-spec.ts tests it in depth)', async () => {
    const { id } = await createV2('v2-logs');
    const reply = await alice<{ lines: unknown[] }>('GET', `/v2/pods/${id}/logs`);
    expect(reply.status).toBe(200);
    expect(reply.body.lines).toEqual(expect.any(Array));
  });
});
