import { Logger } from '@nestjs/common';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { lbWorkerPorts, PodStatus } from '@app/contracts';
import { PodSerial } from '../pod-serial.js';
import type { LbWorkerAddress, ObservationSink, RuntimeDriver } from '../runtime-driver.js';
import { isApiStatus } from './kubernetes-client.js';
import {
  kubePodName,
  MANAGED_SELECTOR,
  observePod,
  podManifest,
  podSelector,
  runGeneration,
  type KubeObservation,
  type KubernetesPodOptions,
  type KubernetesPodRun,
} from './kubernetes-pod.js';
import type { KubernetesLogFollower } from './kubernetes-logs.js';
import { KubernetesRunSecrets } from './kubernetes-run-secrets.js';

export interface KubernetesDriverOptions extends KubernetesPodOptions {
  /** How often the driver lists its Kubernetes pods and reports what changed, in ms. */
  pollMs: number;
}

/** A run the driver follows: its Kubernetes pod and what was last reported of it. */
interface Tracked {
  podId: string;
  generation: number;
  name: string;
  lastReported: string | null;
  /** Listed once at least: a later absence means the Kubernetes pod was deleted behind our back. */
  seen: boolean;
  /** A load-balancing worker: its endpoint and ports (its address is the pod IP once it runs). */
  lb: { endpointId: string; port: number; healthPort: number } | null;
  /** The Kubernetes pod's IP while it runs (from the last list). */
  podIp: string | null;
}

/**
 * One Kubernetes pod per run of a pod, in one namespace (docs/pods.md, "kubernetes"). `ensureRunning` creates the
 * Kubernetes pod of the run, and first its Secrets (the image pull secret; the secret variables, which the pod
 * spec only refers to), after deleting any other run's; the Secrets are then owned by the pod. `stop` and `remove`
 * delete them all. A poll every `pollMs` lists the driver's Kubernetes pods and reports each followed run's status
 * when it changes (phases and container states mapped by `observePod`). Stateless: after a restart,
 * `ensureRunning` of every live pod finds its Kubernetes pod and follows it again.
 */
export class KubernetesDriver implements RuntimeDriver {
  readonly name = 'kubernetes';
  private readonly logger = new Logger('runtime:kubernetes');
  private readonly tracked = new Map<string, Tracked>();
  private readonly serial = new PodSerial();
  private readonly secrets: KubernetesRunSecrets;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly api: CoreV1Api,
    private readonly options: KubernetesDriverOptions,
    private readonly sink: ObservationSink,
    /** Ships the containers' output (docs/adr/0020); none in tests of the pods alone. */
    private readonly logs: KubernetesLogFollower | null = null,
  ) {
    this.secrets = new KubernetesRunSecrets(api, options, this.logger);
  }

  ensureRunning(run: KubernetesPodRun): Promise<void> {
    return this.serial.run(run.podId, async () => {
      const namespace = this.options.namespace;
      const name = kubePodName(run.podId, run.generation);
      const existing = await this.api.listNamespacedPod({ namespace, labelSelector: podSelector(run.podId) });
      let current: V1Pod | undefined;
      for (const pod of existing.items) {
        if (runGeneration(pod) === run.generation && pod.metadata?.name === name) current = pod;
        else await this.deletePod(pod.metadata?.name);
      }
      await this.secrets.delete(run.podId, run.generation);
      const followed = this.tracked.get(run.podId);
      const tracked: Tracked =
        followed?.generation === run.generation
          ? followed
          : {
              podId: run.podId,
              generation: run.generation,
              name,
              lastReported: null,
              seen: false,
              lb: lbOf(run),
              podIp: null,
            };
      this.logs?.start(run, name, current !== undefined && followed?.generation !== run.generation);
      if (current) {
        // Already created (by this process or before a restart): follow it, report what it shows now.
        this.tracked.set(run.podId, tracked);
        this.observe(tracked, current);
        this.startPolling();
        return;
      }
      const opened = this.secrets.open(run);
      if ('failure' in opened) {
        this.sink.report({
          podId: run.podId,
          generation: run.generation,
          status: PodStatus.Error,
          reason: opened.failure,
        });
        return;
      }
      await this.secrets.create(opened.secrets);
      try {
        const created = await this.api.createNamespacedPod({
          namespace,
          body: podManifest(run, this.options),
        });
        this.logger.log(`pod ${run.podId} run ${run.generation}: created ${namespace}/${name}`);
        this.tracked.set(run.podId, tracked);
        this.observe(tracked, created);
        await this.secrets.own(opened.secrets, created);
      } catch (error) {
        if (!isApiStatus(error, 409)) throw error;
        this.tracked.set(run.podId, tracked);
      }
      this.startPolling();
    });
  }

  /** Reached at the pod IP, inside the cluster only (the NetworkPolicy of deploy/runtime/kubernetes). */
  lbWorkers(): LbWorkerAddress[] {
    return [...this.tracked.values()].flatMap((t) => {
      if (!t.lb || !t.podIp) return [];
      const host = t.podIp.includes(':') ? `[${t.podIp}]` : t.podIp;
      return [
        {
          podId: t.podId,
          generation: t.generation,
          endpointId: t.lb.endpointId,
          url: `http://${host}:${t.lb.port}`,
          healthUrl: `http://${host}:${t.lb.healthPort}`,
        },
      ];
    });
  }

  stop(podId: string): Promise<void> {
    return this.serial.run(podId, async () => {
      this.tracked.delete(podId);
      this.logs?.stop(podId);
      const pods = await this.api.listNamespacedPod({
        namespace: this.options.namespace,
        labelSelector: podSelector(podId),
      });
      for (const pod of pods.items) await this.deletePod(pod.metadata?.name);
      await this.secrets.delete(podId, null);
    });
  }

  /** The container disk is an emptyDir: deleting the Kubernetes pod deletes it. A network volume's PVC stays. */
  remove(podId: string): Promise<void> {
    return this.stop(podId);
  }

  /** The Kubernetes pods stay as they are: this process stops following them, their new owner follows them. */
  async release(leaving: (podId: string) => boolean): Promise<void> {
    const podIds = new Set([...this.tracked.keys(), ...this.serial.podIds()].filter(leaving));
    await Promise.all(
      [...podIds].map((podId) =>
        this.serial.run(podId, () => {
          this.tracked.delete(podId);
          this.logs?.stop(podId);
          return Promise.resolve();
        }),
      ),
    );
  }

  async shutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
    // Kubernetes pods outlive pod-lifecycle: the next process follows them again.
    this.tracked.clear();
    this.logs?.stopAll();
  }

  /** Lists the driver's Kubernetes pods once and reports every followed run whose status changed. */
  async poll(): Promise<void> {
    if (this.polling) return this.polling;
    this.polling = this.pollOnce().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    if (!this.tracked.size) return;
    let items: V1Pod[];
    try {
      items = (
        await this.api.listNamespacedPod({
          namespace: this.options.namespace,
          labelSelector: MANAGED_SELECTOR,
        })
      ).items;
    } catch (error) {
      this.logger.warn(`could not list pods in ${this.options.namespace}: ${(error as Error).message}`);
      return;
    }
    const byName = new Map(items.map((pod) => [pod.metadata?.name, pod]));
    for (const tracked of [...this.tracked.values()]) {
      if (this.serial.busy(tracked.podId)) continue; // being changed: the next poll sees the result
      const pod = byName.get(tracked.name);
      if (pod) this.observe(tracked, pod);
      else if (tracked.seen) {
        this.report(tracked, {
          status: PodStatus.Error,
          reason: `the Kubernetes pod ${this.options.namespace}/${tracked.name} disappeared`,
        });
        this.tracked.delete(tracked.podId);
      }
    }
  }

  private observe(tracked: Tracked, pod: V1Pod): void {
    tracked.seen = true;
    tracked.podIp = pod.status?.phase === 'Running' ? (pod.status.podIP ?? null) : null;
    const observation = observePod(pod);
    this.logs?.observed(tracked.podId, tracked.generation, pod.status?.phase);
    if (observation && observation.status !== PodStatus.Provisioning) this.report(tracked, observation);
  }

  private report(tracked: Tracked, observation: KubeObservation): void {
    if (observation.status === PodStatus.Provisioning) return;
    const key = `${observation.status}|${observation.reason ?? ''}`;
    if (tracked.lastReported === key) return;
    tracked.lastReported = key;
    this.logger.debug(`pod ${tracked.podId} run ${tracked.generation}: ${observation.status}`);
    this.sink.report({
      podId: tracked.podId,
      generation: tracked.generation,
      status: observation.status,
      ...(observation.reason ? { reason: observation.reason } : {}),
      ...(observation.exitCode !== undefined ? { exitCode: observation.exitCode } : {}),
    });
  }

  private startPolling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.options.pollMs);
    this.timer.unref();
  }

  private async deletePod(name: string | undefined): Promise<void> {
    if (!name) return;
    try {
      await this.api.deleteNamespacedPod({ name, namespace: this.options.namespace });
      this.logger.log(`deleted ${this.options.namespace}/${name}`);
    } catch (error) {
      if (!isApiStatus(error, 404)) throw error;
    }
  }
}

/** A load-balancing worker's endpoint and ports, from its env; null for any other pod. */
function lbOf(run: KubernetesPodRun): Tracked['lb'] {
  const ports = lbWorkerPorts(run.env);
  const endpointId = run.env.RUNPOD_ENDPOINT_ID;
  return ports && endpointId ? { endpointId, ...ports } : null;
}
