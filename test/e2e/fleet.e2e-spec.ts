import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FleetCapacityView, HostDetailView, HostListView, PodV2View } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, H100, writeFleet } from './clusters-fixtures.js';
import { client, expectProblem, until, type Call, type Reply } from './pods.e2e-helpers.js';

/** The seed: one 2-GPU A100 host in EU-RO-1 (the file's hosts are the fleet the scheduler starts with). */
const FLEET = writeFleet([{ id: 'seed-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 2 }]);
const HOSTS = '/v2/fleet/hosts';
const host = (id: string, action = '') => `${HOSTS}/${id}${action}`;
/** A registration body: `id` of `gpus` GPUs of `gpuTypeId` in `dataCenterId`. */
const hostBody = (id: string, dataCenterId: string, gpuTypeId: string, gpus: number, more = {}) => ({
  id,
  dataCenterId,
  gpuTypeId,
  gpuCount: gpus,
  publicIp: '203.0.113.20',
  ...more,
});

/**
 * The operators' fleet routes (docs/api.md, "Fleet") against the gateway, the cluster scheduler that owns the fleet
 * and pod-lifecycle on the simulated runtime: only operators reach them; bodies and filters are checked in the
 * API's words; register → list → cordon → drain → remove, the capacity following; new pods go only to READY hosts.
 */
describe('the fleet, through the gateway', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: TestKey;
  let operator: Call;

  const as = (key: string): Call => client(system, key);
  /** A 422 whose `errors` has one entry matching each pattern (and no other). */
  const invalid = (reply: Reply<unknown>, errors: RegExp[]) => {
    expectProblem(reply, 422);
    const sent = (reply.body as { errors?: string[] }).errors ?? [];
    expect(sent).toHaveLength(errors.length);
    expect(sent).toEqual(expect.arrayContaining(errors.map((e) => expect.stringMatching(e))));
  };
  const capacityOf = async (dataCenterId: string, gpuTypeId: string) => {
    const reply = await operator<FleetCapacityView>('GET', '/v2/fleet/capacity');
    expect(reply.status).toBe(200);
    return {
      view: reply.body,
      row: reply.body.gpus.find((r) => r.dataCenterId === dataCenterId && r.gpuTypeId === gpuTypeId),
    };
  };
  const ids = (list: Reply<HostListView>) => list.body.hosts.map((h) => h.id);

  beforeAll(async () => {
    db = await createTestDatabase('fleet');
    system = await startApps({
      databaseUrl: db.url,
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      appEnv: {
        gateway: { RATE_LIMITS_ENABLED: 'false' },
        'cluster-scheduler': { FLEET_FILE: FLEET },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    alice = await userWithKey(db.url, 'alice');
    await keysCli(db.url, ['user', 'create', 'ops']);
    const ops = JSON.parse(
      await keysCli(db.url, ['key', 'create', 'ops', '--scope', 'operator', '--json']),
    ) as TestKey;
    operator = as(ops.key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('refuses every fleet route to a key that is not an operator key, before anything else', async () => {
    const register = hostBody('x-1', 'EU-RO-1', A100, 1);
    const routes: [string, string, unknown?][] = [
      ['GET', HOSTS],
      ['GET', host('seed-a100-1')],
      ['POST', HOSTS, register],
      ['POST', host('seed-a100-1', '/cordon'), {}],
      ['POST', host('seed-a100-1', '/uncordon')],
      ['POST', host('seed-a100-1', '/drain'), {}],
      ['DELETE', host('seed-a100-1')],
      ['POST', host('seed-a100-1', '/health'), { healthy: false }],
      ['POST', host('seed-a100-1', '/gpu-faults'), { kind: 'XID' }],
      ['GET', '/v2/fleet/capacity'],
    ];
    for (const [method, path, body] of routes) {
      expectProblem(await as(alice.key)(method, path, body), 403, /operators'/);
    }
    // Nothing changed: the seed host is READY and alone.
    const list = await operator<HostListView>('GET', HOSTS);
    expect(list.status).toBe(200);
    expect(list.body.hosts).toEqual([
      expect.objectContaining({ id: 'seed-a100-1', state: 'READY', source: 'file', schedulable: true }),
    ]);
  });

  it('checks bodies and filters, naming each bad field; an unknown host is 404', async () => {
    invalid(
      await operator('POST', HOSTS, {
        id: 'Not_A_Host',
        dataCenterId: 'EU-RO-1',
        gpuCount: -1,
        publicIp: 'nowhere',
        source: 'kubernetes',
      }),
      [
        /^id must be lower-case letters/,
        /^gpuCount must not be less than 0/,
        /^publicIp must be an ip/,
        /^source: property source should not exist/,
      ],
    );
    invalid(await operator('GET', `${HOSTS}?state=BROKEN&limit=0&colour=blue`), [
      /^state must be one of/,
      /^limit must not be less than 1/,
      /^colour: property colour should not exist/,
    ]);
    invalid(
      await operator('POST', host('seed-a100-1', '/drain'), { deadlineSeconds: -1, by: 'kubernetes' }),
      [/^deadlineSeconds must not be less than 0/, /^by: property by should not exist/],
    );
    invalid(await operator('POST', host('seed-a100-1', '/health'), { reason: 'x' }), [
      /^healthy must be a boolean/,
    ]);
    invalid(await operator('POST', host('seed-a100-1', '/gpu-faults'), { kind: 'FIRE', xid: 0 }), [
      /^kind must be one of/,
      /^xid must not be less than 1/,
    ]);
    expectProblem(await operator('GET', host('no-such-host')), 404);
    expectProblem(await operator('POST', host('no-such-host', '/cordon'), {}), 404);
    expectProblem(await operator('POST', HOSTS, hostBody('x-2', 'MARS-1', A100, 1)), 400);
  });

  it('registers, lists, cordons, drains and removes a host, the capacity following each step', async () => {
    const registered = await operator<HostDetailView>(
      'POST',
      HOSTS,
      hostBody('ro-a100-2', 'EU-RO-1', A100, 4, { portRange: [21000, 21099] }),
    );
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({
      id: 'ro-a100-2',
      state: 'READY',
      source: 'api',
      gpuCount: 4,
      allocatedGpus: 0,
      portRange: [21000, 21099],
      health: { healthy: true },
      podsOnHost: [],
    });
    await operator('POST', HOSTS, hostBody('cz-h100-1', 'EU-CZ-1', H100, 8));

    const filtered: [string, string[]][] = [
      ['', ['cz-h100-1', 'ro-a100-2', 'seed-a100-1']],
      ['?dataCenterId=EU-RO-1', ['ro-a100-2', 'seed-a100-1']],
      [`?gpuTypeId=${encodeURIComponent(H100)}`, ['cz-h100-1']],
      ['?source=api', ['cz-h100-1', 'ro-a100-2']],
    ];
    for (const [query, expected] of filtered) {
      expect(ids(await operator<HostListView>('GET', `${HOSTS}${query}`))).toEqual(expected);
    }
    const first = await operator<HostListView>('GET', `${HOSTS}?limit=2`);
    expect(ids(first)).toEqual(['cz-h100-1', 'ro-a100-2']);
    expect(first.body.next).toBe('ro-a100-2');
    const second = await operator<HostListView>('GET', `${HOSTS}?limit=2&after=ro-a100-2`);
    expect(ids(second)).toEqual(['seed-a100-1']);
    expect(second.body.next).toBeNull();

    expect((await capacityOf('EU-RO-1', A100)).row).toMatchObject({
      hosts: 2,
      total: 6,
      allocated: 0,
      free: 6,
      unavailable: 0,
    });

    const cordoned = await operator<HostDetailView>('POST', host('ro-a100-2', '/cordon'), {
      reason: 'new firmware',
    });
    expect(cordoned.status).toBe(200);
    expect(cordoned.body).toMatchObject({
      state: 'CORDONED',
      schedulable: false,
      scheduling: { state: 'CORDONED', by: 'operator', reason: 'new firmware' },
    });
    expect(ids(await operator<HostListView>('GET', `${HOSTS}?state=CORDONED`))).toEqual(['ro-a100-2']);
    const { view, row } = await capacityOf('EU-RO-1', A100);
    expect(row).toMatchObject({ total: 6, allocated: 0, free: 2, unavailable: 4 });
    expect(view.hosts).toMatchObject({ READY: 2, CORDONED: 1, DRAINING: 0, UNHEALTHY: 0, GONE: 0 });

    // Removing a host that was never drained is refused; drained (it holds nothing), it may go.
    const drained = await operator<HostDetailView>('POST', host('ro-a100-2', '/drain'), {
      reason: 'retire',
      deadlineSeconds: 600,
    });
    expect(drained.status).toBe(200);
    expect(drained.body).toMatchObject({
      state: 'DRAINING',
      drained: true,
      scheduling: { reason: 'retire' },
    });
    const deadline = Date.parse(drained.body.drainDeadline ?? '');
    expect(deadline - Date.now()).toBeGreaterThan(590_000);
    expect(deadline - Date.now()).toBeLessThanOrEqual(600_000);

    const removed = await operator<HostDetailView>('DELETE', host('ro-a100-2'));
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: 'ro-a100-2', state: 'GONE' });
    expect(ids(await operator<HostListView>('GET', `${HOSTS}?state=GONE`))).toEqual(['ro-a100-2']);
    expect((await capacityOf('EU-RO-1', A100)).row).toMatchObject({
      hosts: 1,
      total: 2,
      free: 2,
      unavailable: 0,
    });
    expectProblem(await operator('POST', host('ro-a100-2', '/cordon'), {}), 409);
  });

  it('places new pods only on READY hosts, and refuses when none is READY', async () => {
    const alicePods = as(alice.key);
    const pod = (name: string) => ({
      name,
      image: 'runpod/base:0.6.2',
      gpu: { id: A100, count: 1 },
      disk: 10,
    });
    const back = await operator<HostDetailView>('POST', HOSTS, hostBody('ro-a100-2', 'EU-RO-1', A100, 4));
    expect(back.body).toMatchObject({ state: 'READY', source: 'api' });

    expect((await operator('POST', host('seed-a100-1', '/cordon'), {})).status).toBe(200);
    const placed: PodV2View[] = [];
    for (const name of ['p1', 'p2', 'p3']) {
      const created = await alicePods<PodV2View>('POST', '/v2/pods', pod(name));
      expect(created.status).toBe(201);
      placed.push(created.body);
    }
    for (const created of placed) {
      const machine = await until(`the host of ${created.id}`, async () => {
        return (await alicePods<PodV2View>('GET', `/v2/pods/${created.id}`)).body.machineId;
      });
      expect(machine).toBe('ro-a100-2');
    }
    const detail = await until('the pods on ro-a100-2', async () => {
      const view = (await operator<HostDetailView>('GET', host('ro-a100-2'))).body;
      return view.podsOnHost.length === 3 ? view : undefined;
    });
    expect(detail).toMatchObject({ allocatedGpus: 3, pods: 3 });
    expect(detail.podsOnHost.map((p) => p.podId).sort()).toEqual(placed.map((p) => p.id).sort());
    expect((await capacityOf('EU-RO-1', A100)).row).toMatchObject({
      total: 6,
      allocated: 3,
      free: 1,
      unavailable: 2,
    });

    // An operator's health report takes the last READY host out too: nothing can be placed.
    const sick = await operator<HostDetailView>('POST', host('ro-a100-2', '/health'), {
      healthy: false,
      reason: 'fans failing',
      gpuIndex: 3,
    });
    expect(sick.status).toBe(200);
    expect(sick.body).toMatchObject({
      state: 'UNHEALTHY',
      health: { healthy: false, code: 'OPERATOR', source: 'operator', reason: 'fans failing', gpuIndex: 3 },
    });
    expectProblem(await alicePods('POST', '/v2/pods', pod('p4')), 409);

    const well = await operator<HostDetailView>('POST', host('ro-a100-2', '/health'), { healthy: true });
    expect(well.body).toMatchObject({ state: 'READY', health: { healthy: true, code: null } });
    expect((await operator('POST', host('seed-a100-1', '/uncordon'))).status).toBe(200);
    expect((await capacityOf('EU-RO-1', A100)).row?.unavailable).toBe(0);
  });

  it('fails a GPU of a simulated host on request: the host goes UNHEALTHY with the Xid', async () => {
    const faulted = await operator<HostDetailView>('POST', host('cz-h100-1', '/gpu-faults'), {
      kind: 'XID',
      gpuIndex: 2,
      xid: 79,
    });
    expect(faulted.status).toBe(200);
    const view = await until('cz-h100-1 unhealthy', async () => {
      const now = (await operator<HostDetailView>('GET', host('cz-h100-1'))).body;
      return now.state === 'UNHEALTHY' ? now : undefined;
    });
    expect(view.health).toMatchObject({ healthy: false, code: 'XID', source: 'runtime', gpuIndex: 2 });
    expect(view.health.reason).toMatch(/79/);
  });
});
