import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig, type V1ContainerStatus, type V1Pod } from '@kubernetes/client-node';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PodStatus } from '@app/contracts';
import type { Observation, ObservationSink } from '../runtime-driver.js';
import {
  GPU_RESOURCE,
  kubePodName,
  observePod,
  pullSecretName,
  type KubernetesPodRun,
} from './kubernetes-pod.js';
import { KubernetesDriver } from './kubernetes.driver.js';

const NS = 'gpucp-pods';

interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: KubeObject | null;
}

/**
 * A fake Kubernetes API server: pods and secrets of namespaces, in memory. It answers like the real one (201 on
 * create with uid, resourceVersion and a Pending status for pods; 404/409 with a Status object; label selectors
 * `k=v,...` on lists) and records every request.
 */
class FakeKubeApi {
  readonly requests: RecordedRequest[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private version = 1;
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  pod(name: string): KubeObject | undefined {
    return this.objects.get(`pods/${NS}/${name}`);
  }

  names(kind: 'pods' | 'secrets'): string[] {
    return [...this.objects.keys()].filter((k) => k.startsWith(`${kind}/`)).map((k) => k.split('/')[2]);
  }

  /** What the kubelet would write: the pod's phase and its container's state. */
  setStatus(name: string, phase: string, container?: Partial<V1ContainerStatus>): void {
    const pod = this.pod(name);
    if (!pod) throw new Error(`no pod ${name}`);
    pod.status = {
      phase,
      ...(container
        ? {
            containerStatuses: [
              { name: 'pod', image: 'x', imageID: '', restartCount: 0, ready: false, ...container },
            ],
          }
        : {}),
    };
    pod.metadata.resourceVersion = String(++this.version);
  }

  creates(kind: 'pods' | 'secrets'): KubeObject[] {
    return this.requests
      .filter((r) => r.method === 'POST' && r.path === `/api/v1/namespaces/${NS}/${kind}`)
      .map((r) => r.body as KubeObject);
  }

  deletes(kind: 'pods' | 'secrets'): string[] {
    return this.requests
      .filter((r) => r.method === 'DELETE' && r.path.startsWith(`/api/v1/namespaces/${NS}/${kind}/`))
      .map((r) => r.path.split('/').pop() as string);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as KubeObject) : null;
      const method = req.method ?? 'GET';
      this.requests.push({ method, path: url.pathname, query: url.searchParams, body });
      const match = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|secrets)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match)
        return this.send(res, 404, this.status(404, 'NotFound', `the server could not find ${url.pathname}`));
      const [, namespace, kind, name] = match;
      const kindName = kind === 'pods' ? 'Pod' : 'Secret';
      const key = (n: string): string => `${kind}/${namespace}/${n}`;
      if (!name && method === 'GET') {
        const wanted = (url.searchParams.get('labelSelector') ?? '')
          .split(',')
          .filter(Boolean)
          .map((term) => term.split('='));
        const items = [...this.objects.entries()]
          .filter(([k]) => k.startsWith(`${kind}/${namespace}/`))
          .map(([, o]) => o)
          .filter((o) => wanted.every(([k, v]) => o.metadata.labels?.[k] === v));
        return this.send(res, 200, {
          apiVersion: 'v1',
          kind: `${kindName}List`,
          metadata: { resourceVersion: String(this.version) },
          items,
        });
      }
      if (!name && method === 'POST' && body) {
        if (this.objects.has(key(body.metadata.name))) {
          return this.send(
            res,
            409,
            this.status(409, 'AlreadyExists', `${kind} "${body.metadata.name}" already exists`),
          );
        }
        const stored: KubeObject = {
          ...body,
          metadata: {
            ...body.metadata,
            namespace,
            uid: `uid-${++this.version}`,
            resourceVersion: String(this.version),
            creationTimestamp: new Date().toISOString(),
          },
          ...(kind === 'pods' ? { status: { phase: 'Pending' } } : {}),
        };
        this.objects.set(key(body.metadata.name), stored);
        return this.send(res, 201, stored);
      }
      const existing = name ? this.objects.get(key(name)) : undefined;
      if (!name || !existing) {
        return this.send(res, 404, this.status(404, 'NotFound', `${kind} "${name ?? ''}" not found`));
      }
      if (method === 'GET') return this.send(res, 200, existing);
      if (method === 'DELETE') {
        this.objects.delete(key(name));
        return this.send(res, 200, existing);
      }
      return this.send(res, 405, this.status(405, 'MethodNotAllowed', `${method} is not supported`));
    });
  }

  private status(code: number, reason: string, message: string): object {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  }

  private send(res: ServerResponse, code: number, body: object): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
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
    pullSecret: null,
    ...overrides,
  };
}

describe('KubernetesDriver against a fake Kubernetes API', () => {
  let api: FakeKubeApi;
  let sink: Sink;
  let driver: KubernetesDriver;

  beforeEach(async () => {
    api = new FakeKubeApi();
    await api.start();
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'fake', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'tester' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'tester' }],
      currentContext: 'fake',
    });
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
    expect(api.deletes('secrets')).toEqual([pullSecretName('p1', 1)]);
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
