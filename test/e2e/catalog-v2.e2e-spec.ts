import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CpuTypeView, DataCenterView, GpuTypeView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, H100, writeFleet } from './clusters-fixtures.js';
import { client, expectProblem, type Call } from './pods.e2e-helpers.js';

const FLEET = writeFleet([
  { id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8, cpuSlots: 4 },
]);

/** `GET /v2/catalog/gpus/{id}`: one entry of the GPU list, as SkyPilot asks for it before creating a pod. */
describe('catalog: one GPU type', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;

  beforeAll(async () => {
    db = await createTestDatabase('catalog_v2');
    system = await startApps({
      apps: ['gateway', 'cluster-scheduler'],
      databaseUrl: db.url,
      appEnv: { 'cluster-scheduler': { FLEET_FILE: FLEET } },
    });
    alice = client(system, (await userWithKey(db.url, 'alice')).key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('answers the entry of the list by its URL-encoded id, 404 for an unknown one, 401 without a key', async () => {
    const list = await alice<GpuTypeView[]>('GET', '/v2/catalog/gpus');
    const a100 = list.body.find((g) => g.id === A100);
    expect(a100).toBeDefined();
    const one = await alice<GpuTypeView>('GET', `/v2/catalog/gpus/${encodeURIComponent(A100)}`);
    expect(one).toMatchObject({ status: 200, body: a100 });
    expect(one.body.availability).toMatchObject({ totalGpus: 8, dataCenterIds: ['EU-RO-1'] });
    // The fleet file's price when it names one, the default (0.0125 per GB of memory) otherwise.
    expect(one.body.pricePerHr).toBe(1);
    expect(list.body.find((g) => g.id === H100)?.pricePerHr).toBe(2.49);
    expectProblem(await alice('GET', '/v2/catalog/gpus/NVIDIA%20B999'), 404, /GPU type/);
    const anonymous = await fetch(`${system.url('gateway')}/v2/catalog/gpus/${encodeURIComponent(A100)}`);
    expect(anonymous.status).toBe(401);
  });

  it("a CPU type and a data center by id, with the MCP server's include parameters; 404 naming the id", async () => {
    // get-cpu-type and get-data-center send RunPod's availability parameters: the entry (with availability).
    const cpus = await alice<CpuTypeView[]>('GET', '/v2/catalog/cpus');
    const cpu = await alice<CpuTypeView>(
      'GET',
      '/v2/catalog/cpus/cpu3c?include=AVAILABILITY&product=POD&vcpuCount=4',
    );
    expect(cpu).toMatchObject({ status: 200, body: cpus.body.find((c) => c.id === 'cpu3c') });
    expect(cpu.body.availability).toMatchObject({ totalSlots: 4, dataCenterIds: ['EU-RO-1'] });
    const dataCenters = await alice<DataCenterView[]>('GET', '/v2/catalog/datacenters');
    const ro = await alice<DataCenterView>('GET', '/v2/catalog/datacenters/EU-RO-1?include=GPU_AVAILABILITY');
    expect(ro).toMatchObject({ status: 200, body: dataCenters.body.find((d) => d.id === 'EU-RO-1') });
    expect(ro.body.gpuAvailability).toEqual([expect.objectContaining({ gpuTypeId: A100, totalGpus: 8 })]);
    expectProblem(await alice('GET', '/v2/catalog/cpus/cpu9z'), 404, /CPU type.*cpu9z/);
    expectProblem(await alice('GET', '/v2/catalog/datacenters/MARS-1'), 404, /data center.*MARS-1/);
    expect((await fetch(`${system.url('gateway')}/v2/catalog/datacenters/EU-RO-1`)).status).toBe(401);
  });
});
