import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PodStatus,
  type GpuTypeView,
  type NetworkVolumeView,
  type PodDetailsView,
  type PodView,
} from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { client, expectProblem, waitForPod, type Call } from './pods.e2e-helpers.js';

const GPU = 'NVIDIA RTX A4000';

/**
 * REST v1 pods with the real cluster-scheduler: `GET /v1/pods/{id}?includeMachine=true&includeNetworkVolume=true`
 * reads the host from the catalog and the volume from its owner, and an edit of a RUNNING pod's ports keeps its
 * host and GPUs while the scheduler maps the new ports.
 */
describe('pods, REST v1, with the scheduler: includes and an edit of ports', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let bob: Call;

  const details = async (id: string, query = '', call: Call = alice) =>
    call<PodDetailsView>('GET', `/v1/pods/${id}${query}`);
  const freeGpus = async () =>
    (await alice<GpuTypeView>('GET', `/v2/catalog/gpus/${encodeURIComponent(GPU)}`)).body.availability
      .freeGpus;

  async function create(body: Record<string, unknown>): Promise<PodView> {
    const reply = await alice<PodView>('POST', '/v1/pods', { imageName: 'runpod/base:0.6.2', ...body });
    expect(reply.status).toBe(201);
    return waitForPod(alice, reply.body.id, PodStatus.Running);
  }

  beforeAll(async () => {
    const apps = ['gateway', 'cluster-scheduler', 'pod-lifecycle'] as const;
    db = await createTestDatabase('pods_v1_details', { apps });
    system = await startApps({
      apps,
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
      },
    });
    alice = client(system, (await userWithKey(db.url, 'alice')).key);
    bob = client(system, (await userWithKey(db.url, 'bob')).key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('includeMachine and includeNetworkVolume add what the catalog and the volume owner know', async () => {
    const volume = (
      await alice<NetworkVolumeView>('POST', '/v1/networkvolumes', {
        name: 'weights',
        size: 20,
        dataCenterId: 'EU-RO-1',
      })
    ).body;
    const pod = await create({ name: 'with-volume', gpuTypeId: GPU, networkVolumeId: volume.id });

    const plain = await details(pod.id);
    expect(plain.status).toBe(200);
    expect(plain.body.machine).toEqual({ gpuTypeId: GPU, dataCenterId: 'EU-RO-1' });
    expect(plain.body).not.toHaveProperty('networkVolume');

    const full = await details(pod.id, '?includeMachine=true&includeNetworkVolume=true');
    expect(full.body.machine).toEqual({
      gpuTypeId: GPU,
      dataCenterId: 'EU-RO-1',
      podHostId: pod.machineId,
      gpuDisplayName: 'RTX A4000',
      gpuMemoryInGb: 16,
      cpuTypeId: null,
      location: 'RO',
    });
    expect(full.body.networkVolume).toEqual(volume);

    const cpu = await create({ name: 'cpu', computeType: 'CPU', cpuFlavorId: 'cpu3g' });
    const cpuDetails = await details(cpu.id, '?includeMachine=true&includeNetworkVolume=true');
    expect(cpuDetails.body.machine).toMatchObject({
      gpuTypeId: null,
      gpuDisplayName: null,
      cpuTypeId: 'cpu3g',
      location: expect.any(String),
    });
    expect(cpuDetails.body.networkVolume).toBeNull();

    expectProblem(await details('nope', '?includeMachine=true'), 404);
    expectProblem(await details(pod.id, '?includeMachine=true', bob), 403);
  });

  it('a RUNNING pod whose ports change keeps host and GPUs; the scheduler maps the new ports', async () => {
    const pod = await create({ name: 'ports', gpuTypeId: GPU, ports: ['22/tcp'] });
    const free = await freeGpus();
    const edited = await alice<PodView>('PATCH', `/v1/pods/${pod.id}`, { ports: ['22/tcp', '8888/http'] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ status: PodStatus.Starting, machineId: pod.machineId });
    expect(Object.keys(edited.body.portMappings).sort()).toEqual(['22', '8888']);
    expect(await freeGpus()).toBe(free);
    const again = await waitForPod(alice, pod.id, PodStatus.Running);
    expect(again.portMappings).toEqual(edited.body.portMappings);

    // Stopped, edited and started: the start reserves the pod's current ports.
    expect((await alice('POST', `/v1/pods/${pod.id}/stop`)).status).toBe(200);
    expect((await alice('PATCH', `/v1/pods/${pod.id}`, { ports: ['7000/tcp'] })).status).toBe(200);
    const started = await alice<PodView>('POST', `/v1/pods/${pod.id}/start`);
    expect(started.body).toMatchObject({ status: PodStatus.Starting, machineId: pod.machineId });
    expect(Object.keys(started.body.portMappings)).toEqual(['7000']);
  });
});
