import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { PodStatus } from '@app/contracts';
import { FakeKubeApi } from '../../../../../test/support/fake-kube-api.js';
import type { LogSink, PodRun, RunLog } from '../runtime-driver.js';
import { kubePodName, type KubernetesPodRun } from './kubernetes-pod.js';
import { kubeLogOpener, KubernetesLogFollower } from './kubernetes-logs.js';
import { KubernetesDriver } from './kubernetes.driver.js';

const NS = 'gpucp-pods';

/** Records what reaches each run's log, as the shipper would receive it. */
class Logs implements LogSink {
  readonly lines: string[] = [];
  opened = 0;
  closed = 0;
  open(run: PodRun): RunLog {
    this.opened += 1;
    return {
      write: (stream, chunk) =>
        this.lines.push(
          ...chunk
            .split('\n')
            .filter(Boolean)
            .map((l) => `${run.generation}:${stream}:${l}`),
        ),
      system: (line) => this.lines.push(`${run.generation}:system:${line}`),
      close: () => {
        this.closed += 1;
        return Promise.resolve();
      },
    };
  }
}

async function until(what: string, probe: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function run(generation = 1): KubernetesPodRun {
  return {
    podId: 'p1',
    generation,
    diskEpoch: 1,
    status: PodStatus.Provisioning,
    image: 'trainer:1',
    args: null,
    env: {},
    ports: [],
    portMappings: {},
    gpuTypeId: null,
    gpuCount: 0,
    hostId: null,
    containerDiskGb: 10,
    secretEnv: { names: [], open: () => ({}) },
    pullSecret: null,
  };
}

describe('KubernetesDriver shipping container logs from the Kubernetes log API', () => {
  let api: FakeKubeApi;
  let logs: Logs;
  let driver: KubernetesDriver;
  const name = kubePodName('p1', 1);

  beforeEach(async () => {
    api = new FakeKubeApi(NS);
    await api.start();
    const config = api.kubeConfig();
    logs = new Logs();
    driver = new KubernetesDriver(
      config.makeApiClient(CoreV1Api),
      {
        namespace: NS,
        dataCenterLabel: 'dc',
        gpuTypeLabel: 'gpu',
        volumeClaimPattern: 'v-{volumeId}',
        pollMs: 60_000,
      },
      { report: () => undefined },
      new KubernetesLogFollower(kubeLogOpener(config), logs, NS),
    );
  });

  afterEach(async () => {
    await driver.shutdown();
    api.endLog(name);
    await api.stop();
  });

  const logRequests = () => api.requests.filter((r) => r.path.endsWith(`/pods/${name}/log`));

  it('follows the container once it runs: what it printed before, then each new line, in order', async () => {
    await driver.ensureRunning(run());
    api.print(name, 'early');
    await driver.poll(); // Pending: the log API would refuse, it is not asked
    expect(logRequests()).toEqual([]);

    api.setStatus(name, 'Running', { state: { running: { startedAt: new Date() } } });
    await driver.poll();
    api.print(name, 'second');
    api.print(name, 'third');
    await until('three lines', () => logs.lines.length === 3);
    expect(logs.lines).toEqual(['1:stdout:early', '1:stdout:second', '1:stdout:third']);
    const [request] = logRequests();
    expect(Object.fromEntries(request.query)).toEqual(
      expect.objectContaining({ container: 'pod', follow: 'true', timestamps: 'true' }),
    );

    await driver.poll(); // already following: no second stream
    expect(logRequests()).toHaveLength(1);
  });

  it('opens the stream again after it broke, from the last line shipped, nothing twice', async () => {
    await driver.ensureRunning(run());
    api.setStatus(name, 'Running', { state: { running: { startedAt: new Date() } } });
    api.print(name, 'one');
    await driver.poll();
    await until('the first line', () => logs.lines.length === 1);
    api.endLog(name);
    api.print(name, 'two'); // printed while nobody followed

    await until('the stream to be noticed closed', () => {
      void driver.poll();
      return logRequests().length === 2;
    });
    await until('the second line', () => logs.lines.length === 2);
    expect(logs.lines).toEqual(['1:stdout:one', '1:stdout:two']);
    expect(logRequests()[1].query.get('sinceTime')).toMatch(/^\d{4}-.*Z$/);
  });

  it('ships the whole output of a container that already ended, once, and closes the log when stopped', async () => {
    await driver.ensureRunning(run());
    api.print(name, 'done');
    api.setStatus(name, 'Succeeded', { state: { terminated: { exitCode: 0, startedAt: new Date() } } });
    await driver.poll();
    await until('the line', () => logs.lines.length === 1);
    await driver.poll();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logRequests()).toHaveLength(1);

    await driver.stop('p1');
    expect(logs.closed).toBe(1);
  });
});
