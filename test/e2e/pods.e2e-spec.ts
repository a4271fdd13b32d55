import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, Subjects, type PodAction, type PodV2View, type PodView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { closeBus, commandEnvelope, sendCommand } from '../support/bus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import {
  PlacementStandIn,
  client,
  expectProblem,
  getPod,
  statusEvents,
  until,
  waitForPod,
  type Call,
} from './pods.e2e-helpers.js';

const { Provisioning, Starting, Running, Exited, Error: Err, Terminated } = PodStatus;

/**
 * Pods over HTTP against the running gateway and pod-lifecycle (simulated runtime, short delays, real Postgres
 * and NATS). Placement answers come from a stand-in for cluster-scheduler's placement consumer, so this file
 * tests pod-lifecycle on its own; pods-scheduler.e2e-spec.ts runs the real scheduler.
 */
describe('pods', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;

  const podBody = (name: string, env: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
    name,
    imageName: 'runpod/base:0.6.2',
    gpuTypeId: 'NVIDIA RTX A4000',
    gpuCount: 1,
    containerDiskInGb: 10,
    ports: ['22/tcp', '8888/http'],
    env: { MODEL: 'llama', ...env },
    ...extra,
  });

  async function createPod(
    name: string,
    env: Record<string, string> = {},
    extra: Record<string, unknown> = {},
  ) {
    const reply = await alice<PodView>('POST', '/v1/pods', podBody(name, env, extra));
    expect(reply.status).toBe(201);
    return reply.body;
  }

  /** A fresh pod of alice's in `status`. */
  async function podIn(status: PodStatus, label: string): Promise<PodView> {
    switch (status) {
      case Provisioning:
        return waitForPod(alice, (await createPod(label, { SIM_PROVISION_MS: '600000' })).id, Provisioning);
      case Starting:
        return waitForPod(alice, (await createPod(label, { SIM_START_MS: '600000' })).id, Starting);
      case Running:
        return waitForPod(alice, (await createPod(label)).id, Running);
      case Exited: {
        const pod = await podIn(Running, label);
        expect((await alice('POST', `/v1/pods/${pod.id}/stop`)).status).toBe(200);
        return getPod(alice, pod.id);
      }
      case Err:
        return waitForPod(alice, (await createPod(label, { SIM_FAIL_START: '1' })).id, Err);
      case Terminated: {
        const pod = await podIn(Running, label);
        expect((await alice('DELETE', `/v1/pods/${pod.id}`)).status).toBe(204);
        return getPod(alice, pod.id);
      }
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase('pods', { apps: ['gateway', 'pod-lifecycle'] });
    system = await startApps({
      apps: ['gateway', 'pod-lifecycle'],
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
      },
    });
    placement = await new PlacementStandIn(system.natsPrefix).start();
    alice = client(system, (await userWithKey(db.url, 'alice')).key);
    bob = client(system, (await userWithKey(db.url, 'bob')).key);
  });

  afterAll(async () => {
    await placement?.stop();
    await closeBus();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('creates a standalone GPU pod: 201 PROVISIONING, placed, then RUNNING, one event per status', async () => {
    const reply = await alice<PodView>('POST', '/v1/pods', podBody('first', { HF_TOKEN: 'hf_secret_value' }));
    expect(reply.status).toBe(201);
    const pod = reply.body;
    expect(pod).toMatchObject({
      name: 'first',
      image: 'runpod/base:0.6.2',
      imageName: 'runpod/base:0.6.2',
      status: Provisioning,
      desiredStatus: Running,
      gpuTypeId: 'NVIDIA RTX A4000',
      gpuCount: 1,
      computeType: 'GPU',
      containerDiskInGb: 10,
      machineId: 'host-a',
      dataCenterId: 'EU-TEST-1',
      machine: { gpuTypeId: 'NVIDIA RTX A4000', dataCenterId: 'EU-TEST-1' },
      publicIp: '203.0.113.10',
      ports: ['22/tcp', '8888/http'],
      portMappings: { '22': expect.any(Number), '8888': expect.any(Number) },
      env: { MODEL: 'llama', HF_TOKEN: '********' },
      clusterId: null,
      allowedActions: ['stop', 'terminate'],
      reason: { code: 'PROVISIONING', since: pod.lastStatusChange },
    });
    expect(reply.text).not.toContain('hf_secret_value');
    expect(placement.reserves.find((r) => r.podId === pod.id)).toMatchObject({
      ownerId: pod.userId,
      gpuTypeId: 'NVIDIA RTX A4000',
      gpuCount: 1,
      ports: ['22/tcp', '8888/http'],
    });

    const running = await waitForPod(alice, pod.id, Running);
    expect(running.allowedActions).toEqual(['stop', 'reset', 'terminate']);
    expect(running.reason).toBeNull(); // the reason clears once it runs
    const listed = await alice<PodView[]>('GET', '/v1/pods');
    expect(listed.body.map((p) => p.id)).toContain(pod.id);
    await until(
      'three status events',
      async () => (await statusEvents(system.natsPrefix, pod.id)).length === 3,
    );
    expect(await statusEvents(system.natsPrefix, pod.id)).toEqual([
      { status: Provisioning, previousStatus: null },
      { status: Starting, previousStatus: Provisioning },
      { status: Running, previousStatus: Starting },
    ]);
  });

  it('creates a CPU pod (no GPUs asked of the scheduler)', async () => {
    const reply = await alice<PodView>('POST', '/v1/pods', {
      name: 'cpu',
      imageName: 'alpine:3',
      computeType: 'CPU',
      cpuFlavorId: 'cpu3c',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      computeType: 'CPU',
      gpuCount: 0,
      gpuTypeId: null,
      cpuFlavorId: 'cpu3c',
    });
    expect(placement.reserves.find((r) => r.podId === reply.body.id)).toMatchObject({
      gpuCount: 0,
      cpuTypeId: 'cpu3c',
    });
    expect(placement.reserves.find((r) => r.podId === reply.body.id)?.gpuTypeId).toBeUndefined();
  });

  type Expect = { code: 200 | 204; now: PodStatus; then?: PodStatus } | { code: 409 };
  const ok = (now: PodStatus, then?: PodStatus): Expect => ({ code: 200, now, then });
  const gone: Expect = { code: 204, now: Terminated };
  const refused: Expect = { code: 409 };

  /** docs/pods.md's table, through the HTTP routes: every status × every action. */
  const table: [PodStatus, PodAction, Expect][] = [
    [Provisioning, 'start', ok(Provisioning)],
    [Provisioning, 'stop', ok(Exited)],
    [Provisioning, 'reset', refused],
    [Provisioning, 'terminate', gone],
    [Starting, 'start', ok(Starting)],
    [Starting, 'stop', ok(Exited)],
    [Starting, 'reset', refused],
    [Starting, 'terminate', gone],
    [Running, 'start', ok(Running)],
    [Running, 'stop', ok(Exited)],
    [Running, 'reset', ok(Starting, Running)],
    [Running, 'terminate', gone],
    [Exited, 'start', ok(Starting, Running)],
    [Exited, 'stop', ok(Exited)],
    [Exited, 'reset', ok(Starting, Running)],
    [Exited, 'terminate', gone],
    [Err, 'start', ok(Starting, Err)],
    [Err, 'stop', refused],
    [Err, 'reset', ok(Starting, Err)],
    [Err, 'terminate', gone],
    [Terminated, 'start', refused],
    [Terminated, 'stop', refused],
    [Terminated, 'reset', refused],
    [Terminated, 'terminate', { code: 204, now: Terminated }],
  ];

  it.each(table)('%s + %s', async (status, action, expected) => {
    const pod = await podIn(status, `${status}-${action}`.toLowerCase());
    const reply =
      action === 'terminate'
        ? await alice<PodView>('DELETE', `/v1/pods/${pod.id}`)
        : await alice<PodView>('POST', `/v1/pods/${pod.id}/${action}`);
    if (expected.code === 409) {
      expectProblem(
        reply,
        409,
        new RegExp(`cannot ${action} pod ${pod.id}: it is ${status}; (allowed actions|no action)`),
      );
      expect((await getPod(alice, pod.id)).status).toBe(status);
      return;
    }
    expect(reply.status).toBe(expected.code);
    if (expected.code === 200) expect(reply.body.status).toBe(expected.now);
    else expect(reply.text).toBe('');
    const after = await getPod(alice, pod.id);
    if (expected.then) {
      expect([expected.now, expected.then]).toContain(after.status);
      await waitForPod(alice, pod.id, expected.then);
    } else {
      expect(after.status).toBe(expected.now);
    }
  });

  it('start resumes on the same host and keeps the desired status in step', async () => {
    const pod = await podIn(Exited, 'resume');
    expect(pod.desiredStatus).toBe(Exited);
    const started = await alice<PodView>('POST', `/v1/pods/${pod.id}/start`);
    expect(started.body).toMatchObject({ status: Starting, desiredStatus: Running, machineId: 'host-a' });
    expect(placement.reserves.filter((r) => r.podId === pod.id).at(-1)).toMatchObject({ hostId: 'host-a' });
  });

  it('start answers the scheduler’s refusal when the host lacks the GPUs now (409, no silent move)', async () => {
    const pod = await podIn(Exited, 'no-capacity');
    placement.refuse.add(pod.id);
    expectProblem(
      await alice('POST', `/v1/pods/${pod.id}/start`),
      409,
      /host host-a has no free NVIDIA RTX A4000/,
    );
    expect(await getPod(alice, pod.id)).toMatchObject({ status: Exited, machineId: 'host-a' });
    placement.refuse.delete(pod.id);
  });

  it('serialises concurrent actions on one pod: five stops, one EXITED event', async () => {
    const pod = await podIn(Running, 'concurrent');
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => alice<PodView>('POST', `/v1/pods/${pod.id}/stop`)),
    );
    expect(replies.map((r) => [r.status, r.body.status])).toEqual(
      Array.from({ length: 5 }, () => [200, Exited]),
    );
    await until('the EXITED event', async () =>
      (await statusEvents(system.natsPrefix, pod.id)).some((e) => e.status === Exited),
    );
    const events = await statusEvents(system.natsPrefix, pod.id);
    expect(events.filter((e) => e.status === Exited)).toHaveLength(1);
  });

  it('a container that ends by itself: code 0 → EXITED, another code → ERROR with the reason', async () => {
    const clean = await createPod('exits-0', { SIM_EXIT_AFTER_MS: '200' });
    const exited = await waitForPod(alice, clean.id, Exited);
    expect(exited).toMatchObject({
      statusReason: 'the container exited with code 0',
      // The machine-readable reason beside it, since its last status change.
      reason: {
        code: 'EXITED',
        message: 'the container exited with code 0',
        since: exited.lastStatusChange,
        details: { exitCode: 0 },
      },
    });
    const failing = await createPod('exits-3', { SIM_EXIT_AFTER_MS: '200', SIM_EXIT_CODE: '3' });
    expect(await waitForPod(alice, failing.id, Err)).toMatchObject({
      statusReason: 'the container exited with code 3',
      reason: { code: 'ERROR', message: 'the container exited with code 3', details: { exitCode: 3 } },
    });
    const v2 = await alice<PodV2View>('GET', `/v2/pods/${failing.id}`);
    expect(v2.body.reason).toMatchObject({ code: 'ERROR', details: { exitCode: 3 } });
  });

  it('a failed host takes its live pods to ERROR, and only those (pod.cmd.host-failed)', async () => {
    const onB = await waitForPod(
      alice,
      (await createPod('on-b', {}, { dataCenterIds: ['EU-HOST-B'] })).id,
      Running,
    );
    const stoppedOnB = await createPod('stopped-on-b', {}, { dataCenterIds: ['EU-HOST-B'] });
    await alice('POST', `/v1/pods/${stoppedOnB.id}/stop`);
    const onA = await waitForPod(alice, (await createPod('on-a')).id, Running);
    expect(onB.machineId).toBe('host-b');

    const outcome = await sendCommand(
      system.natsPrefix,
      commandEnvelope(
        Subjects.pod.hostFailed,
        { hostId: 'host-b', reason: 'power loss' },
        {
          actor: { userId: 'operator', kind: 'system' },
        },
      ),
    );
    expect(outcome).toEqual({ ok: true, value: { podIds: [onB.id] } });
    expect(await getPod(alice, onB.id)).toMatchObject({
      status: Err,
      statusReason: 'host host-b failed: power loss',
    });
    expect((await getPod(alice, stoppedOnB.id)).status).toBe(Exited);
    expect((await getPod(alice, onA.id)).status).toBe(Running);
  });

  describe('errors', () => {
    it('unknown pod → 404 on every route', async () => {
      expectProblem(await alice('GET', '/v1/pods/nope'), 404, /pod nope does not exist/);
      for (const action of ['start', 'stop', 'reset']) {
        expectProblem(await alice('POST', `/v1/pods/nope/${action}`), 404);
      }
      expectProblem(await alice('DELETE', '/v1/pods/nope'), 404);
    });

    it('another user’s pod → 403 on every route, and unchanged', async () => {
      const pod = await podIn(Running, 'alices');
      expectProblem(await bob('GET', `/v1/pods/${pod.id}`), 403, /belongs to another user/);
      for (const action of ['start', 'stop', 'reset']) {
        expectProblem(await bob('POST', `/v1/pods/${pod.id}/${action}`), 403);
      }
      expectProblem(await bob('DELETE', `/v1/pods/${pod.id}`), 403);
      expect((await bob<PodView[]>('GET', '/v1/pods')).body.map((p) => p.id)).not.toContain(pod.id);
      expect((await getPod(alice, pod.id)).status).toBe(Running);
    });

    it('no key → 401', async () => {
      const reply = await fetch(`${system.url('gateway')}/v1/pods`);
      expect(reply.status).toBe(401);
    });

    it.each([
      ['an unknown property', { ...podBody('x'), color: 'red' }, /property color should not exist/],
      ['a malformed port', { ...podBody('x'), ports: ['22'] }, /each port must be/],
      ['an env value that is not a string', { ...podBody('x'), env: { A: 1 } }, /env must be an object/],
      ['no image and no template', { name: 'x', gpuTypeId: 'A' }, /imageName must be given/],
      [
        'a GPU pod without a GPU type',
        { name: 'x', imageName: 'x' },
        /gpuTypeId \(or gpuTypeIds\) is required/,
      ],
    ])('%s → 422', async (_label, body, detail) => {
      const reply = await alice('POST', '/v1/pods', body);
      expectProblem(reply, 422);
      expect((reply.body.errors as string[]).join('\n')).toMatch(detail);
    });

    it('an unknown template or registry credential → 404, another user’s → 403', async () => {
      expectProblem(
        await alice('POST', '/v1/pods', { ...podBody('x'), templateId: 'nope' }),
        404,
        /template nope/,
      );
      expectProblem(
        await alice('POST', '/v1/pods', { ...podBody('x'), containerRegistryAuthId: 'nope' }),
        404,
        /container registry credential nope/,
      );
      const bobs = await bob<{ id: string }>('POST', '/v1/templates', { name: 'bobs', imageName: 'b:1' });
      expectProblem(await alice('POST', '/v1/pods', { ...podBody('x'), templateId: bobs.body.id }), 403);
    });
  });
});
