import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api, type V1ContainerStatus, type V1Pod } from '@kubernetes/client-node';
import { PodStatus } from '@app/contracts';
import { FakeKubeApi } from '../../../../../test/support/fake-kube-api.js';
import type { Observation, ObservationSink, SecretEnv } from '../runtime-driver.js';
import {
  envSecretName,
  GPU_RESOURCE,
  kubePodName,
  observePod,
  pullSecretName,
  type KubernetesPodRun,
} from './kubernetes-pod.js';
import { KubernetesDriver } from './kubernetes.driver.js';

const NS = 'gpucp-pods';

/** Secret variables as the reconciler hands them over: opened only when asked. */
function secretEnv(values: Record<string, string>): SecretEnv & { opened: number } {
  const env = {
    names: Object.keys(values).sort(),
    opened: 0,
    open: () => {
      env.opened += 1;
      return { ...values };
    },
  };
  return env;
}

class Sink implements ObservationSink {
  readonly reports: Observation[] = [];
  report(observation: Observation): void {
    this.reports.push(observation);
  }
}

function run(overrides: Partial<KubernetesPodRun> = {}): KubernetesPodRun {
  return {
    podId: 'p1',
    generation: 1,
    diskEpoch: 1,
    status: PodStatus.Provisioning,
    image: 'registry.example.com/team/trainer:1.2',
    args: '--epochs 3 "--name=my run"',
    env: { HF_TOKEN: 'hf-secret', RUNPOD_POD_ID: 'p1', RUNPOD_DC_ID: 'EU-RO-1' },
    ports: ['8888/http', '22/tcp'],
    portMappings: { '22/tcp': 40122 },
    gpuTypeId: 'NVIDIA GeForce RTX 4090',
    gpuCount: 2,
    hostId: 'eu-ro-1-h00001',
    containerDiskGb: 20,
    secretEnv: secretEnv({}),
    pullSecret: null,
    ...overrides,
  };
}

describe('KubernetesDriver against a fake Kubernetes API', () => {
  let api: FakeKubeApi;
  let sink: Sink;
  let driver: KubernetesDriver;

  beforeEach(async () => {
    api = new FakeKubeApi(NS);
    await api.start();
    const config = api.kubeConfig();
    sink = new Sink();
    driver = new KubernetesDriver(
      config.makeApiClient(CoreV1Api),
      {
        namespace: NS,
        dataCenterLabel: 'gpucp.io/data-center',
        gpuTypeLabel: 'gpucp.io/gpu-type',
        volumeClaimPattern: 'volume-{volumeId}',
        pollMs: 60_000,
      },
      sink,
    );
  });

  afterEach(async () => {
    await driver.shutdown();
    await api.stop();
  });

  const name = kubePodName('p1', 1);
  const statuses = (): string[] => sink.reports.map((r) => r.status);

  it('creates one Kubernetes pod with image, args, env, ports, GPUs, node selection, mounts and a pull secret', async () => {
    await driver.ensureRunning(
      run({
        networkVolumeId: 'vol1',
        volumeMountPath: '/workspace',
        pullSecret: { registryAuthId: 'ra1', username: 'robot', password: () => 's3cret' },
      }),
    );

    const [secret] = api.creates('secrets');
    expect(secret.metadata.name).toBe(pullSecretName('p1', 1));
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const dockerConfig = JSON.parse(
      Buffer.from((secret.data as Record<string, string>)['.dockerconfigjson'], 'base64').toString('utf8'),
    ) as { auths: Record<string, { username: string; password: string; auth: string }> };
    expect(dockerConfig.auths['registry.example.com']).toEqual({
      username: 'robot',
      password: 's3cret',
      auth: Buffer.from('robot:s3cret').toString('base64'),
    });

    const [created] = api.creates('pods') as unknown as V1Pod[];
    expect(created.metadata?.name).toBe(name);
    expect(created.metadata?.labels).toMatchObject({ 'gpucp.io/pod-id': 'p1', 'gpucp.io/generation': '1' });
    const spec = created.spec!;
    expect(spec.restartPolicy).toBe('Never');
    expect(spec.nodeSelector).toEqual({
      'gpucp.io/data-center': 'EU-RO-1',
      'gpucp.io/gpu-type': 'NVIDIA-GeForce-RTX-4090',
    });
    expect(spec.imagePullSecrets).toEqual([{ name: pullSecretName('p1', 1) }]);
    const container = spec.containers[0];
    expect(container.image).toBe('registry.example.com/team/trainer:1.2');
    expect(container.args).toEqual(['--epochs', '3', '--name=my run']);
    expect(container.env).toEqual([
      { name: 'HF_TOKEN', value: 'hf-secret' },
      { name: 'RUNPOD_DC_ID', value: 'EU-RO-1' },
      { name: 'RUNPOD_POD_ID', value: 'p1' },
    ]);
    expect(container.ports).toEqual([
      { containerPort: 8888, protocol: 'TCP', name: 'http-8888' },
      { containerPort: 22, protocol: 'TCP', name: 'tcp-22' },
    ]);
    expect(container.resources).toEqual({
      requests: { [GPU_RESOURCE]: '2' },
      limits: { [GPU_RESOURCE]: '2' },
    });
    expect(spec.volumes).toEqual([
      { name: 'container-disk', emptyDir: { sizeLimit: '20Gi' } },
      { name: 'network-volume', persistentVolumeClaim: { claimName: 'volume-vol1' } },
    ]);
    expect(container.volumeMounts).toEqual([
      { name: 'network-volume', mountPath: '/workspace' },
      { name: 'container-disk', mountPath: '/container-disk' },
    ]);
    // Freshly created: Pending, not scheduled yet → PROVISIONING, nothing reported.
    expect(sink.reports).toEqual([]);
  });

  it('puts secret variables in a Secret of the run that the pod spec refers to, never in the spec itself', async () => {
    const key = 'cpk_worker_key_in_clear';
    const env = secretEnv({ RUNPOD_AI_API_KEY: key });
    await driver.ensureRunning(
      run({ secretEnv: env, pullSecret: { registryAuthId: 'ra1', username: 'robot', password: () => 'pw' } }),
    );

    const secretName = envSecretName('p1', 1);
    const secret = api.creates('secrets').find((s) => s.metadata.name === secretName)!;
    expect(secret).toMatchObject({
      type: 'Opaque',
      immutable: true,
      metadata: { labels: { 'gpucp.io/pod-id': 'p1', 'gpucp.io/generation': '1' } },
      data: { RUNPOD_AI_API_KEY: Buffer.from(key).toString('base64') },
    });
    const [created] = api.creates('pods') as unknown as V1Pod[];
    expect(created.spec!.containers[0].env).toEqual([
      { name: 'HF_TOKEN', value: 'hf-secret' },
      {
        name: 'RUNPOD_AI_API_KEY',
        valueFrom: { secretKeyRef: { name: secretName, key: 'RUNPOD_AI_API_KEY' } },
      },
      { name: 'RUNPOD_DC_ID', value: 'EU-RO-1' },
      { name: 'RUNPOD_POD_ID', value: 'p1' },
    ]);
    expect(JSON.stringify(created)).not.toContain(key);
    expect(JSON.stringify(created)).not.toContain(Buffer.from(key).toString('base64'));
    expect(env.opened).toBe(1);

    // Secrets first (the kubelet must find them), then the pod, then the pod owns them.
    const order = api.requests.map((r) => `${r.method} ${r.path.split('/').slice(5).join('/')}`);
    expect(order.filter((r) => !r.startsWith('GET') && !r.startsWith('DELETE'))).toEqual([
      'POST secrets',
      'POST secrets',
      'POST pods',
      `PATCH secrets/${pullSecretName('p1', 1)}`,
      `PATCH secrets/${secretName}`,
    ]);
    expect(api.requests.filter((r) => r.method === 'PATCH').map((r) => r.contentType)).toEqual([
      expect.stringMatching(/^application\/json-patch\+json/),
      expect.stringMatching(/^application\/json-patch\+json/),
    ]);
    const podUid = api.pod(name)!.metadata.uid;
    for (const secretOfRun of [secretName, pullSecretName('p1', 1)]) {
      expect(api.get('secrets', secretOfRun)!.metadata.ownerReferences).toEqual([
        { apiVersion: 'v1', kind: 'Pod', name, uid: podUid },
      ]);
    }
  });

  it("a Kubernetes pod deleted behind the driver's back takes its Secrets with it (owner references)", async () => {
    await driver.ensureRunning(run({ secretEnv: secretEnv({ RUNPOD_AI_API_KEY: 'k' }) }));
    expect(api.names('secrets')).toEqual([envSecretName('p1', 1)]);
    await fetch(`${api.url}/api/v1/namespaces/${NS}/pods/${name}`, { method: 'DELETE' });
    expect(api.names('secrets')).toEqual([]);
  });

  it('a secret variable that cannot be opened reports ERROR and creates nothing', async () => {
    const env: SecretEnv = {
      names: ['RUNPOD_AI_API_KEY'],
      open: () => {
        throw new Error('secret variable RUNPOD_AI_API_KEY cannot be opened: REGISTRY_AUTH_KEYS is not set');
      },
    };
    await driver.ensureRunning(run({ secretEnv: env }));
    expect(api.creates('pods')).toEqual([]);
    expect(api.creates('secrets')).toEqual([]);
    expect(sink.reports).toEqual([
      {
        podId: 'p1',
        generation: 1,
        status: PodStatus.Error,
        reason:
          'cannot start: secret variable RUNPOD_AI_API_KEY cannot be opened: REGISTRY_AUTH_KEYS is not set',
      },
    ]);
  });

  it('a new run replaces the Secrets of the previous one; stop deletes them; a restart keeps the current ones', async () => {
    // Without owner references (the patch refused), so the driver's own deletes are what removes them.
    api.forbidPatches = true;
    const env = secretEnv({ RUNPOD_AI_API_KEY: 'k' });
    await driver.ensureRunning(run({ secretEnv: env }));
    await driver.shutdown();
    await driver.ensureRunning(run({ secretEnv: env, status: PodStatus.Running }));
    expect(api.names('secrets')).toEqual([envSecretName('p1', 1)]);
    await driver.ensureRunning(run({ generation: 2, status: PodStatus.Starting, secretEnv: env }));
    expect(api.names('secrets')).toEqual([envSecretName('p1', 2)]);
    await driver.stop('p1');
    expect(api.names('secrets')).toEqual([]);
    expect(api.names('pods')).toEqual([]);
    expect(api.deletes('secrets')).toEqual([envSecretName('p1', 1), envSecretName('p1', 2)]);
  });

  it('is idempotent: a second ensureRunning of the same run creates nothing', async () => {
    await driver.ensureRunning(run());
    await driver.ensureRunning(run());
    expect(api.creates('pods')).toHaveLength(1);
  });

  it('reports STARTING, RUNNING and EXITED as the pod moves through its phases (each once)', async () => {
    await driver.ensureRunning(run());
    await driver.poll();
    expect(sink.reports).toEqual([]);

    api.setStatus(name, 'Pending', { state: { waiting: { reason: 'ContainerCreating' } } });
    await driver.poll();
    api.setStatus(name, 'Running', { ready: false, state: { running: {} } });
    await driver.poll();
    api.setStatus(name, 'Running', { ready: true, state: { running: {} } });
    await driver.poll();
    await driver.poll();
    api.setStatus(name, 'Succeeded', { state: { terminated: { exitCode: 0, reason: 'Completed' } } });
    await driver.poll();

    expect(sink.reports).toEqual([
      { podId: 'p1', generation: 1, status: PodStatus.Starting },
      { podId: 'p1', generation: 1, status: PodStatus.Running },
      {
        podId: 'p1',
        generation: 1,
        status: PodStatus.Exited,
        exitCode: 0,
        reason: 'the container exited with code 0',
      },
    ]);
  });

  it('a load-balancing worker: labelled for its NetworkPolicy, its ports declared, reached at the pod IP once running', async () => {
    const lbEnv = {
      RUNPOD_ENDPOINT_TYPE: 'LB',
      RUNPOD_ENDPOINT_ID: 'ep1',
      PORT: '8000',
      PORT_HEALTH: '8001',
    };
    await driver.ensureRunning(run({ env: lbEnv, ports: [] }));
    const pod = api.pod(name) as unknown as V1Pod;
    expect(pod.metadata?.labels?.['gpucp.io/lb-worker']).toBe('true');
    expect(pod.spec?.containers[0].ports?.map((p) => p.containerPort)).toEqual([8000, 8001]);
    expect(driver.lbWorkers()).toEqual([]);

    api.setStatus(name, 'Running', { ready: true, state: { running: {} } });
    (api.pod(name)!.status as { podIP?: string }).podIP = '10.1.2.3';
    await driver.poll();
    expect(driver.lbWorkers()).toEqual([
      {
        podId: 'p1',
        generation: 1,
        endpointId: 'ep1',
        url: 'http://10.1.2.3:8000',
        healthUrl: 'http://10.1.2.3:8001',
      },
    ]);
    await driver.stop('p1');
    expect(driver.lbWorkers()).toEqual([]);
  });

  it('any other pod carries no load-balancing label and is no LB worker', async () => {
    await driver.ensureRunning(run());
    expect((api.pod(name) as unknown as V1Pod).metadata?.labels?.['gpucp.io/lb-worker']).toBeUndefined();
    api.setStatus(name, 'Running', { ready: true, state: { running: {} } });
    await driver.poll();
    expect(driver.lbWorkers()).toEqual([]);
  });

  it('reports a failed container as ERROR with its exit code and reason', async () => {
    await driver.ensureRunning(run());
    api.setStatus(name, 'Failed', {
      state: { terminated: { exitCode: 137, reason: 'OOMKilled', message: 'out of memory' } },
    });
    await driver.poll();
    expect(sink.reports).toEqual([
      {
        podId: 'p1',
        generation: 1,
        status: PodStatus.Error,
        exitCode: 137,
        reason: 'the container exited with code 137 (OOMKilled): out of memory',
      },
    ]);
  });

  it('an image pull failure reaches ERROR with the reason', async () => {
    await driver.ensureRunning(run({ image: 'registry.example.com/team/missing:0' }));
    api.setStatus(name, 'Pending', {
      state: {
        waiting: {
          reason: 'ErrImagePull',
          message: 'rpc error: registry.example.com/team/missing:0: not found',
        },
      },
    });
    await driver.poll();
    api.setStatus(name, 'Pending', {
      state: {
        waiting: {
          reason: 'ImagePullBackOff',
          message: 'Back-off pulling image "registry.example.com/team/missing:0"',
        },
      },
    });
    await driver.poll();
    expect(sink.reports).toEqual([
      {
        podId: 'p1',
        generation: 1,
        status: PodStatus.Error,
        reason: 'ErrImagePull: rpc error: registry.example.com/team/missing:0: not found',
      },
      {
        podId: 'p1',
        generation: 1,
        status: PodStatus.Error,
        reason: 'ImagePullBackOff: Back-off pulling image "registry.example.com/team/missing:0"',
      },
    ]);
  });

  it('a credential that cannot be opened reports ERROR and creates nothing', async () => {
    await driver.ensureRunning(
      run({
        pullSecret: {
          registryAuthId: 'ra1',
          username: 'robot',
          password: () => {
            throw new Error('REGISTRY_AUTH_KEYS is not set in pod-lifecycle');
          },
        },
      }),
    );
    expect(api.creates('pods')).toEqual([]);
    expect(api.creates('secrets')).toEqual([]);
    expect(sink.reports[0]).toMatchObject({ status: PodStatus.Error });
    expect(sink.reports[0].reason).toContain('registry credential ra1 cannot be opened');
  });

  it('stop deletes the Kubernetes pod and its pull secret; start creates the next run', async () => {
    const secret = { registryAuthId: 'ra1', username: 'robot', password: () => 'pw' };
    await driver.ensureRunning(run({ pullSecret: secret }));
    api.setStatus(name, 'Running', { ready: true, state: { running: {} } });
    await driver.poll();

    await driver.stop('p1');
    expect(api.deletes('pods')).toEqual([name]);
    // The pull secret went with its owner, the pod; the driver deletes what is left of the run's secrets itself.
    expect(api.names('pods')).toEqual([]);
    expect(api.names('secrets')).toEqual([]);
    await driver.poll(); // the deleted pod is no longer followed: no report of its absence
    expect(statuses()).toEqual([PodStatus.Running]);

    await driver.ensureRunning(run({ generation: 2, status: PodStatus.Starting, pullSecret: secret }));
    expect(api.names('pods')).toEqual([kubePodName('p1', 2)]);
    expect(api.names('secrets')).toEqual([pullSecretName('p1', 2)]);
    api.setStatus(kubePodName('p1', 2), 'Running', { ready: true, state: { running: {} } });
    await driver.poll();
    expect(sink.reports.at(-1)).toEqual({ podId: 'p1', generation: 2, status: PodStatus.Running });
  });

  it('reset deletes the running generation and creates the new one (fresh container disk)', async () => {
    await driver.ensureRunning(run());
    api.setStatus(name, 'Running', { ready: true, state: { running: {} } });
    await driver.poll();

    await driver.ensureRunning(run({ generation: 2, diskEpoch: 2, status: PodStatus.Starting }));
    expect(api.deletes('pods')).toEqual([name]);
    expect(api.names('pods')).toEqual([kubePodName('p1', 2)]);
    const second = api.creates('pods')[1];
    expect(second.metadata.labels).toMatchObject({ 'gpucp.io/generation': '2', 'gpucp.io/disk-epoch': '2' });
    api.setStatus(kubePodName('p1', 2), 'Running', { ready: true, state: { running: {} } });
    await driver.poll();
    expect(sink.reports.map((r) => [r.generation, r.status])).toEqual([
      [1, PodStatus.Running],
      [2, PodStatus.Running],
    ]);
  });

  it('terminate removes the Kubernetes pod and its secret, and is idempotent', async () => {
    await driver.ensureRunning(
      run({ pullSecret: { registryAuthId: 'ra1', username: 'u', password: () => 'pw' } }),
    );
    await driver.remove('p1');
    await driver.remove('p1');
    expect(api.names('pods')).toEqual([]);
    expect(api.names('secrets')).toEqual([]);
    expect(api.deletes('pods')).toEqual([name]);
  });

  it('follows again a run created before a restart, and reports a pod deleted behind its back', async () => {
    await driver.ensureRunning(run());
    api.setStatus(name, 'Running', { ready: true, state: { running: {} } });
    await driver.shutdown();

    await driver.ensureRunning(run({ status: PodStatus.Running }));
    expect(api.creates('pods')).toHaveLength(1);
    expect(statuses()).toEqual([PodStatus.Running]);

    await driver.stop('p1');
    await driver.ensureRunning(run({ generation: 2, status: PodStatus.Starting }));
    api.setStatus(kubePodName('p1', 2), 'Running', { ready: true, state: { running: {} } });
    await driver.poll();
    // An operator deletes it by hand.
    await fetch(`${api.url}/api/v1/namespaces/${NS}/pods/${kubePodName('p1', 2)}`, { method: 'DELETE' });
    await driver.poll();
    expect(sink.reports.at(-1)).toEqual({
      podId: 'p1',
      generation: 2,
      status: PodStatus.Error,
      reason: `the Kubernetes pod ${NS}/${kubePodName('p1', 2)} disappeared`,
    });
  });

  it('answers 404 with a Status object that the driver tolerates on delete', async () => {
    const response = await fetch(`${api.url}/api/v1/namespaces/${NS}/pods/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    await expect(driver.stop('nope')).resolves.toBeUndefined();
  });
});

describe('observePod (phase and container state → status)', () => {
  const pod = (phase: string, container?: Partial<V1ContainerStatus>, deleting = false): V1Pod => ({
    metadata: { name: 'x', ...(deleting ? { deletionTimestamp: new Date() } : {}) },
    status: {
      phase,
      ...(container
        ? {
            containerStatuses: [
              { name: 'pod', image: 'i', imageID: '', restartCount: 0, ready: false, ...container },
            ],
          }
        : {}),
    },
  });

  it.each([
    ['Pending, unscheduled', pod('Pending'), { status: PodStatus.Provisioning }],
    [
      'Pending, creating',
      pod('Pending', { state: { waiting: { reason: 'ContainerCreating' } } }),
      { status: PodStatus.Starting },
    ],
    ['Running, not ready', pod('Running', { state: { running: {} } }), { status: PodStatus.Starting }],
    [
      'Running, ready',
      pod('Running', { ready: true, state: { running: {} } }),
      { status: PodStatus.Running },
    ],
    [
      'Succeeded',
      pod('Succeeded'),
      { status: PodStatus.Exited, exitCode: 0, reason: 'the container exited with code 0' },
    ],
    [
      'Failed',
      pod('Failed', { state: { terminated: { exitCode: 2, reason: 'Error' } } }),
      { status: PodStatus.Error, exitCode: 2, reason: 'the container exited with code 2 (Error)' },
    ],
    [
      'Failed, evicted',
      { status: { phase: 'Failed', reason: 'Evicted', message: 'low on disk' } },
      { status: PodStatus.Error, reason: 'Evicted: low on disk' },
    ],
    [
      'CrashLoopBackOff',
      pod('Running', { state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s' } } }),
      { status: PodStatus.Error, reason: 'CrashLoopBackOff: back-off 5m0s' },
    ],
    [
      'ImagePullBackOff',
      pod('Pending', { state: { waiting: { reason: 'ImagePullBackOff' } } }),
      { status: PodStatus.Error, reason: 'ImagePullBackOff' },
    ],
    [
      'ErrImagePull',
      pod('Pending', { state: { waiting: { reason: 'ErrImagePull', message: 'denied' } } }),
      { status: PodStatus.Error, reason: 'ErrImagePull: denied' },
    ],
    ['Unknown', pod('Unknown'), null],
    ['being deleted', pod('Running', { ready: true }, true), null],
  ] as [string, V1Pod, unknown][])('%s', (_case, input, expected) => {
    expect(observePod(input)).toEqual(expected);
  });
});
