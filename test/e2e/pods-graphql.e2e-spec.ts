import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, type PodView } from '@app/contracts';
import { createKey, createUser } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { sshPublicKey } from './clusters-fixtures.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { client, until, type Call } from './pods.e2e-helpers.js';

const GPU = 'NVIDIA RTX A4000';
const POD_FIELDS =
  'id containerDiskInGb costPerHr desiredStatus dockerArgs dockerId env gpuCount imageName lastStatusChange ' +
  'machineId memoryInGb name podType port ports uptimeSeconds vcpuCount volumeInGb volumeMountPath ' +
  'runtime { ports { ip isIpPublic privatePort publicPort type } } machine { gpuDisplayName }';

interface Pod {
  id: string;
  desiredStatus: string;
  runtime: { ports: { privatePort: number; publicPort: number | null; type: string }[] } | null;
  [field: string]: unknown;
}

/**
 * The pod documents of the Python SDK and of provisioners (management-api.md §3), each as written, on the same pods
 * as /v1 and /v2 (the real scheduler places them; the simulated runtime runs them).
 */
describe('pods over GraphQL, as the SDKs send them', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let gql: Graphql;
  let readGql: Graphql;
  let rest: Call;

  beforeAll(async () => {
    db = await createTestDatabase('pods_graphql', {
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
    });
    system = await startApps({
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      databaseUrl: db.url,
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
      },
    });
    await createUser(db.url, 'alice', { exempt: true });
    const key = (await createKey(db.url, 'alice')).key;
    gql = graphqlClient(system, key);
    readGql = graphqlClient(system, (await createKey(db.url, 'alice', 'read')).key);
    rest = client(system, key);
    expect((await rest('POST', '/v1/user/ssh-keys', { publicKey: sshPublicKey('me@host') })).status).toBe(
      201,
    );
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  const podById = async (podId: string) =>
    (await gql<{ pod: Pod }>(`query pod { pod(input: {podId: "${podId}"}) { ${POD_FIELDS} } }`)).body;

  it('asks for the GPU type, creates the pod as the SDK does, and reads it until runtime is set', async () => {
    const types = await gql<{ gpuTypes: { id: string; displayName: string }[] }>(
      `query GpuTypes { gpuTypes(input: {id: "${GPU}"}) { maxGpuCount id displayName memoryInGb secureCloud communityCloud lowestPrice(input: {gpuCount: 1}) { minimumBidPrice uninterruptablePrice } } }`,
    );
    expect(types.body.errors).toBeUndefined();
    expect(types.body.data!.gpuTypes).toEqual([
      expect.objectContaining({
        id: GPU,
        lowestPrice: { minimumBidPrice: null, uninterruptablePrice: 0.2 }, // 16 GB × 0.0125, the default
      }),
    ]);
    expect(
      (await gql<{ gpuTypes: unknown[] }>('query { gpuTypes(input: {id: "NO GPU"}) { id } }')).body.data,
    ).toEqual({ gpuTypes: [] });

    const created = await gql<{ podFindAndDeployOnDemand: Pod & { machine: { podHostId: string | null } } }>(
      `mutation { podFindAndDeployOnDemand( input: { name: "sdk-pod", imageName: "runpod/base:0.6.2", cloudType: ALL, startSsh: true, gpuTypeId: "${GPU}", supportPublicIp: true, gpuCount: 1, volumeInGb: 0, minVcpuCount: 2, minMemoryInGb: 15, dataCenterId: null, dockerArgs: "", containerDiskInGb: 10, ports: "8888/http,22/tcp", volumeMountPath: "/runpod-volume", env: [{ key: "K", value: "V" }] } ) { id imageName env machineId machine { podHostId } } }`,
    );
    expect(created.body.errors).toBeUndefined();
    const pod = created.body.data!.podFindAndDeployOnDemand;
    expect(pod).toMatchObject({ imageName: 'runpod/base:0.6.2', env: expect.arrayContaining(['K=V']) });

    // A provisioner polls until `runtime` is not null: the pod runs, its ports mapped.
    const running = await until('runtime set', async () => {
      const body = await podById(pod.id);
      return body.data?.pod.runtime ? body.data.pod : null;
    });
    expect(running).toMatchObject({ desiredStatus: 'RUNNING', ports: '8888/http,22/tcp', volumeInGb: 0 });
    expect(running.runtime!.ports.map((p) => [p.privatePort, p.type])).toEqual(
      expect.arrayContaining([
        [22, 'tcp'],
        [8888, 'http'],
      ]),
    );
    expect(running.machine).toEqual({ gpuDisplayName: expect.any(String) });

    // The same pod on /v1: startSsh exposed 22 and set the account's key.
    const v1 = await rest<PodView>('GET', `/v1/pods/${pod.id}`);
    expect(v1.body).toMatchObject({ status: PodStatus.Running, gpuTypeId: GPU });
    expect(Object.keys(v1.body.env)).toContain('PUBLIC_KEY');

    const mine = await readGql<{ myself: { pods: Pod[] } }>(
      `query myPods { myself { pods { ${POD_FIELDS} } } }`,
    );
    expect(mine.body.errors).toBeUndefined();
    expect(mine.body.data!.myself.pods.map((p) => p.id)).toContain(pod.id);
  });

  it('stops, resumes and terminates through the SDK mutations, acting on pods of every surface', async () => {
    const made = await rest<PodView>('POST', '/v1/pods', {
      name: 'rest-pod',
      imageName: 'alpine:3',
      gpuTypeId: GPU,
    });
    expect(made.status).toBe(201);
    const id = made.body.id;
    await until('running', async () => ((await podById(id)).data?.pod.runtime ? true : null));

    const stopped = await gql<{ podStop: Pod }>(
      `mutation { podStop(input: { podId: "${id}" }) { id desiredStatus } }`,
    );
    expect(stopped.body.data).toEqual({ podStop: { id, desiredStatus: 'EXITED' } });
    await until('exited', async () =>
      (await rest<PodView>('GET', `/v1/pods/${id}`)).body.status === PodStatus.Exited ? true : null,
    );

    const other = await gql(
      `mutation { podResume(input: { podId: "${id}", gpuCount: 2 }) { id desiredStatus } }`,
    );
    expect(errorCode(other)).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(other.body)).toContain('has 1 GPU(s)');
    const resumed = await gql<{ podResume: Pod }>(
      `mutation { podResume(input: { podId: "${id}", gpuCount: 1 }) { id desiredStatus imageName env machineId machine { podHostId } } }`,
    );
    expect(resumed.body.errors).toBeUndefined();
    expect(resumed.body.data!.podResume).toMatchObject({
      id,
      desiredStatus: 'RUNNING',
      imageName: 'alpine:3',
    });

    expect((await readGql(`mutation { podTerminate(input: { podId: "${id}" }) }`)).status).toBe(403);
    const terminated = await gql(`mutation { podTerminate(input: { podId: "${id}" }) }`);
    expect(terminated.body).toEqual({ data: { podTerminate: null } });
    expect((await rest<PodView>('GET', `/v1/pods/${id}`)).body.status).toBe(PodStatus.Terminated);
    // An id that names no pod: `pod: null`, as RunPod answers (runpod-python's get_pod returns None).
    expect((await gql(`query pod { pod(input: {podId: "nope"}) { id } }`)).body).toEqual({
      data: { pod: null },
    });
  });

  it('creates a CPU pod with deployCpuPod; a pod volume on a GPU pod, refused on a CPU pod', async () => {
    const cpu = await gql<{ deployCpuPod: Pod }>(
      'mutation { deployCpuPod(input: { name: "cpu", imageName: "alpine:3", instanceId: "cpu3c", cloudType: SECURE, containerDiskInGb: 5, startSsh: false }) { id imageName } }',
    );
    expect(cpu.body.errors).toBeUndefined();
    const view = await rest<PodView>('GET', `/v1/pods/${cpu.body.data!.deployCpuPod.id}`);
    expect(view.body).toMatchObject({ computeType: 'CPU', cpuFlavorId: 'cpu3c', gpuCount: 0, volumeInGb: 0 });

    // runpod-python's create_pod(volume_in_gb=20, volume_mount_path="/data"): the pod's own volume disk.
    const volume = await gql<{ podFindAndDeployOnDemand: Pod }>(
      `mutation { podFindAndDeployOnDemand(input: { name: "v", imageName: "alpine:3", gpuTypeId: "${GPU}", volumeInGb: 20, volumeMountPath: "/data" }) { id volumeInGb volumeMountPath } }`,
    );
    expect(volume.body.errors).toBeUndefined();
    expect(volume.body.data!.podFindAndDeployOnDemand).toMatchObject({
      volumeInGb: 20,
      volumeMountPath: '/data',
    });
    const id = volume.body.data!.podFindAndDeployOnDemand.id;
    expect((await rest<PodView>('GET', `/v1/pods/${id}`)).body).toMatchObject({
      volumeInGb: 20,
      volumeMountPath: '/data',
    });
    const onCpu = await gql(
      'mutation { deployCpuPod(input: { name: "cv", imageName: "alpine:3", instanceId: "cpu3c", volumeInGb: 20 }) { id } }',
    );
    expect(errorCode(onCpu)).toBe('BAD_REQUEST');
    expect(onCpu.body.errors?.[0]?.message).toBe('volumeInGb is not allowed on a CPU pod');
    expect(onCpu.body.data ?? null).toBeNull();
  });
});
