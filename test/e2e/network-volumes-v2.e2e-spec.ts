import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NetworkVolumeView } from '@app/contracts';
import { createKey, userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, writeFleet } from './clusters-fixtures.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { client, expectProblem, type Call } from './pods.e2e-helpers.js';

const FLEET = writeFleet([{ id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 }]);

/** Network volumes through `/v2/network-volumes`, `/v1/networkvolumes` and the provisioners' GraphQL documents. */
describe('network volumes on v2 and GraphQL', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let bob: Call;
  let aliceGql: Graphql;
  let readGql: Graphql;

  beforeAll(async () => {
    db = await createTestDatabase('volumes_v2');
    system = await startApps({
      apps: ['gateway', 'cluster-scheduler', 'endpoint-autoscaler'],
      databaseUrl: db.url,
      appEnv: { 'cluster-scheduler': { FLEET_FILE: FLEET } },
    });
    const aliceKey = (await userWithKey(db.url, 'alice')).key;
    alice = client(system, aliceKey);
    bob = client(system, (await userWithKey(db.url, 'bob')).key);
    aliceGql = graphqlClient(system, aliceKey);
    readGql = graphqlClient(system, (await createKey(db.url, 'alice', 'read')).key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('v2: create 201, wrapped list, get, rename and grow (200), shrink 400, delete 204; v1 sees the same', async () => {
    const created = await alice<NetworkVolumeView>('POST', '/v2/network-volumes', {
      name: 'data',
      size: 50,
      dataCenter: 'EU-RO-1',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'data',
      size: 50,
      dataCenterId: 'EU-RO-1',
      createdAt: expect.any(String),
    });
    const id = created.body.id;
    expect((await alice('GET', '/v2/network-volumes')).body).toEqual({ networkVolumes: [created.body] });
    expect((await alice('GET', `/v2/network-volumes/${id}`)).body).toEqual(created.body);

    const grown = await alice<NetworkVolumeView>('PATCH', `/v2/network-volumes/${id}`, {
      name: 'data-2',
      size: 80,
    });
    expect(grown).toMatchObject({
      status: 200,
      body: { id, name: 'data-2', size: 80, dataCenterId: 'EU-RO-1' },
    });
    expectProblem(await alice('PATCH', `/v2/network-volumes/${id}`, { size: 79 }), 400, /only grow/);
    const v1 = await alice<NetworkVolumeView>('PATCH', `/v1/networkvolumes/${id}`, { size: 100 });
    expect(v1).toMatchObject({ status: 200, body: { id, name: 'data-2', size: 100 } });
    expect((await alice('GET', `/v1/networkvolumes/${id}`)).body).toMatchObject({
      name: 'data-2',
      size: 100,
    });

    const deleted = await alice('DELETE', `/v2/network-volumes/${id}`);
    expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: '' });
    expectProblem(await alice('GET', `/v1/networkvolumes/${id}`), 404);
  });

  it('v2 errors: 403 for another user, 404, 422; delete 400 while a cluster mounts the volume', async () => {
    const { body: volume } = await alice<NetworkVolumeView>('POST', '/v2/network-volumes', {
      name: 'shared',
      size: 10,
      dataCenter: 'EU-RO-1',
    });
    for (const [method, body] of [['GET'], ['PATCH', { name: 'mine' }], ['DELETE']] as const) {
      expectProblem(await bob(method, `/v2/network-volumes/${volume.id}`, body), 403);
    }
    expect((await bob('GET', '/v2/network-volumes')).body).toEqual({ networkVolumes: [] });
    expectProblem(await alice('GET', '/v2/network-volumes/nope'), 404);
    expectProblem(await alice('PATCH', '/v2/network-volumes/nope', { size: 20 }), 404);
    expectProblem(await alice('PATCH', `/v2/network-volumes/${volume.id}`, {}), 422);
    expectProblem(await alice('PATCH', `/v2/network-volumes/${volume.id}`, { size: 0 }), 422);
    expectProblem(await alice('PATCH', `/v2/network-volumes/${volume.id}`, { dataCenter: 'US-TX-3' }), 422);
    expectProblem(
      await alice('POST', '/v2/network-volumes', { name: 'v1-names', size: 10, dataCenterId: 'EU-RO-1' }),
      422,
    );
    expectProblem(
      await alice('POST', '/v2/network-volumes', { name: 'nowhere', size: 10, dataCenter: 'XX-1' }),
      422,
    );

    const cluster = await alice('POST', '/v2/clusters', {
      name: 'mounting',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
      dataCenterIds: ['EU-RO-1'],
      mounts: { network: [{ volumeId: volume.id, path: '/data' }] },
    });
    expect(cluster.status).toBe(201);
    expectProblem(await alice('DELETE', `/v2/network-volumes/${volume.id}`), 400, /mounted by 1 cluster/);
    expect((await alice('GET', `/v2/network-volumes/${volume.id}`)).status).toBe(200);
  });

  it('the documents verbatim: create (GraphQL) → read (v2) → list (GraphQL) → delete (GraphQL)', async () => {
    const created = await aliceGql<{ createNetworkVolume: { id: string } }>(
      'mutation { createNetworkVolume(input: {name: "v", size: 10, dataCenterId: "EU-RO-1"}) { id } }',
    );
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data!.createNetworkVolume.id;
    expect((await alice('GET', `/v2/network-volumes/${id}`)).body).toMatchObject({ name: 'v', size: 10 });
    const listed = await readGql<{ myself: { networkVolumes: unknown[] } }>(
      'query { myself { networkVolumes { id name size dataCenterId } } }',
    );
    expect(listed.body.data!.myself.networkVolumes).toContainEqual({
      id,
      name: 'v',
      size: 10,
      dataCenterId: 'EU-RO-1',
    });

    expect((await readGql(`mutation { deleteNetworkVolume(input: {id: "${id}"}) }`)).status).toBe(403);
    const deleted = await aliceGql(`mutation { deleteNetworkVolume(input: {id: "${id}"}) }`);
    expect(deleted.body).toEqual({ data: { deleteNetworkVolume: null } });
    expectProblem(await alice('GET', `/v2/network-volumes/${id}`), 404);
    expect(errorCode(await aliceGql(`mutation { deleteNetworkVolume(input: {id: "${id}"}) }`))).toBe(
      'NOT_FOUND',
    );
  });

  it('the documents with variables: create (GraphQL) → delete (v1); invalid input refused', async () => {
    const created = await aliceGql<{ createNetworkVolume: { id: string; size: number } }>(
      'mutation Create($input: CreateNetworkVolumeInput!) { createNetworkVolume(input: $input) { id size } }',
      { input: { name: 'vars', size: 20, dataCenterId: 'EU-RO-1' } },
    );
    const { id } = created.body.data!.createNetworkVolume;
    expect(created.body.data!.createNetworkVolume.size).toBe(20);
    const bad = await aliceGql(
      'mutation Create($input: CreateNetworkVolumeInput!) { createNetworkVolume(input: $input) { id } }',
      { input: { name: 'big', size: 100000, dataCenterId: 'EU-RO-1' } },
    );
    expect(bad.body.errors?.length).toBeGreaterThan(0);
    const bobDelete = await graphqlClient(system, (await createKey(db.url, 'bob')).key)(
      'mutation Delete($input: DeleteNetworkVolumeInput!) { deleteNetworkVolume(input: $input) }',
      { input: { id } },
    );
    expect(bobDelete.status).toBe(403);
    expect((await alice('DELETE', `/v1/networkvolumes/${id}`)).status).toBe(204);
  });
});
