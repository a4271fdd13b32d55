import { Logger } from '@nestjs/common';
import { ApiException, type CoreV1Api, type V1Pod, type V1Secret } from '@kubernetes/client-node';
import { lbWorkerPorts, PodStatus } from '@app/contracts';
import type { LbWorkerAddress, ObservationSink, RuntimeDriver } from '../runtime-driver.js';
import {
  kubePodName,
  LABEL_GENERATION,
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
import { envSecretManifest, imageRegistry, ownedByPatch, pullSecretManifest } from './kubernetes-secrets.js';

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

function isStatus(error: unknown, code: number): boolean {
  return error instanceof ApiException && error.code === code;
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
  private readonly locks = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly api: CoreV1Api,
    private readonly options: KubernetesDriverOptions,
    private readonly sink: ObservationSink,
    /** Ships the containers' output (docs/adr/0020); none in tests of the pods alone. */
    private readonly logs: KubernetesLogFollower | null = null,
  ) {}

  ensureRunning(run: KubernetesPodRun): Promise<void> {
    return this.serialised(run.podId, async () => {
      const namespace = this.options.namespace;
      const name = kubePodName(run.podId, run.generation);
      const existing = await this.api.listNamespacedPod({ namespace, labelSelector: podSelector(run.podId) });
      let current: V1Pod | undefined;
      for (const pod of existing.items) {
        if (runGeneration(pod) === run.generation && pod.metadata?.name === name) current = pod;
        else await this.deletePod(pod.metadata?.name);
      }
      await this.deleteSecrets(run.podId, run.generation);
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
      const secrets = this.secretsOf(run);
      if (!secrets) return;
      for (const secret of secrets) {
        try {
          await this.api.createNamespacedSecret({ namespace, body: secret });
        } catch (error) {
          if (!isStatus(error, 409)) throw error;
        }
      }
      try {
        const created = await this.api.createNamespacedPod({
          namespace,
          body: podManifest(run, this.options),
        });
        this.logger.log(`pod ${run.podId} run ${run.generation}: created ${namespace}/${name}`);
        this.tracked.set(run.podId, tracked);
        this.observe(tracked, created);
        for (const secret of secrets) await this.ownSecret(secret, created);
      } catch (error) {
        if (!isStatus(error, 409)) throw error;
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
    return this.serialised(podId, async () => {
      this.tracked.delete(podId);
      this.logs?.stop(podId);
      const pods = await this.api.listNamespacedPod({
        namespace: this.options.namespace,
        labelSelector: podSelector(podId),
      });
      for (const pod of pods.items) await this.deletePod(pod.metadata?.name);
      await this.deleteSecrets(podId, null);
    });
  }

  /** The container disk is an emptyDir: deleting the Kubernetes pod deletes it. A network volume's PVC stays. */
  remove(podId: string): Promise<void> {
    return this.stop(podId);
  }

  /** The Kubernetes pods stay as they are: this process stops following them, their new owner follows them. */
  async release(leaving: (podId: string) => boolean): Promise<void> {
    const podIds = new Set([...this.tracked.keys(), ...this.locks.keys()].filter(leaving));
    await Promise.all(
      [...podIds].map((podId) =>
        this.serialised(podId, () => {
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
      if (this.locks.has(tracked.podId)) continue; // being changed: the next poll sees the result
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
      if (!isStatus(error, 404)) throw error;
    }
  }

  /**
   * The run's Secrets, their values opened now; null when one cannot be opened, which is reported as ERROR (the
   * message names the credential or the variable and the key ring's problem, never a value).
   */
  private secretsOf(run: KubernetesPodRun): V1Secret[] | null {
    const secrets: V1Secret[] = [];
    let failure: string | null = null;
    if (run.pullSecret) {
      try {
        secrets.push(pullSecretManifest(run, run.pullSecret, imageRegistry(run.image), this.options));
      } catch (error) {
        failure = `cannot pull ${run.image}: registry credential ${run.pullSecret.registryAuthId} cannot be opened (${(error as Error).message})`;
      }
    }
    if (!failure && run.secretEnv.names.length) {
      try {
        secrets.push(envSecretManifest(run, this.options));
      } catch (error) {
        failure = `cannot start: ${(error as Error).message}`;
      }
    }
    if (!failure) return secrets;
    this.sink.report({
      podId: run.podId,
      generation: run.generation,
      status: PodStatus.Error,
      reason: failure,
    });
    return null;
  }

  /**
   * Makes the Kubernetes pod the owner of a Secret of its run, so Kubernetes deletes the Secret with the pod even
   * when someone else deletes the pod. Best effort: the driver deletes the run's Secrets itself anyway.
   */
  private async ownSecret(secret: V1Secret, pod: V1Pod): Promise<void> {
    const name = secret.metadata?.name;
    const patch = ownedByPatch(pod);
    if (!name || !patch) return;
    try {
      await this.api.patchNamespacedSecret({ name, namespace: this.options.namespace, body: patch });
    } catch (error) {
      this.logger.warn(
        `could not make ${pod.metadata?.name} the owner of secret ${name}: ${(error as Error).message}`,
      );
    }
  }

  /** Deletes the pod's Secrets (pull secrets, secret variables), but those of run `keepGeneration`. */
  private async deleteSecrets(podId: string, keepGeneration: number | null): Promise<void> {
    const namespace = this.options.namespace;
    const secrets = await this.api.listNamespacedSecret({ namespace, labelSelector: podSelector(podId) });
    for (const secret of secrets.items) {
      const name = secret.metadata?.name;
      const generation = secret.metadata?.labels?.[LABEL_GENERATION];
      if (!name || (keepGeneration !== null && generation === String(keepGeneration))) continue;
      try {
        await this.api.deleteNamespacedSecret({ name, namespace });
      } catch (error) {
        if (!isStatus(error, 404)) throw error;
      }
    }
  }

  /** One operation per pod at a time. */
  private serialised(podId: string, fn: () => Promise<void>): Promise<void> {
    const previous = this.locks.get(podId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    this.locks.set(podId, settled);
    void settled.then(() => {
      if (this.locks.get(podId) === settled) this.locks.delete(podId);
    });
    return next;
  }
}

/** A load-balancing worker's endpoint and ports, from its env; null for any other pod. */
function lbOf(run: KubernetesPodRun): Tracked['lb'] {
  const ports = lbWorkerPorts(run.env);
  const endpointId = run.env.RUNPOD_ENDPOINT_ID;
  return ports && endpointId ? { endpointId, ...ports } : null;
}
