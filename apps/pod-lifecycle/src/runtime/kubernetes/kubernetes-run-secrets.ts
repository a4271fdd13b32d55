import type { Logger } from '@nestjs/common';
import type { CoreV1Api, V1Pod, V1Secret } from '@kubernetes/client-node';
import { isApiStatus } from './kubernetes-client.js';
import {
  LABEL_GENERATION,
  podSelector,
  type KubernetesPodOptions,
  type KubernetesPodRun,
} from './kubernetes-pod.js';
import { envSecretManifest, imageRegistry, ownedByPatch, pullSecretManifest } from './kubernetes-secrets.js';

/**
 * The Kubernetes Secrets of a pod's runs, as the driver creates, owns and deletes them (kubernetes-secrets.ts
 * builds each): created before the run's pod, which only refers to them; then owned by that pod; deleted with
 * every other run's, and all of them when the pod stops.
 */
export class KubernetesRunSecrets {
  constructor(
    private readonly api: CoreV1Api,
    private readonly options: KubernetesPodOptions,
    private readonly logger: Logger,
  ) {}

  /**
   * The run's Secrets, their values opened now; or, when one cannot be opened, why (naming the credential or the
   * variable and the key ring's problem, never a value).
   */
  open(run: KubernetesPodRun): { secrets: V1Secret[] } | { failure: string } {
    const secrets: V1Secret[] = [];
    if (run.pullSecret) {
      try {
        secrets.push(pullSecretManifest(run, run.pullSecret, imageRegistry(run.image), this.options));
      } catch (error) {
        return {
          failure: `cannot pull ${run.image}: registry credential ${run.pullSecret.registryAuthId} cannot be opened (${(error as Error).message})`,
        };
      }
    }
    if (run.secretEnv.names.length) {
      try {
        secrets.push(envSecretManifest(run, this.options));
      } catch (error) {
        return { failure: `cannot start: ${(error as Error).message}` };
      }
    }
    return { secrets };
  }

  /** Creates them; one that exists already (made before a restart) is kept. */
  async create(secrets: V1Secret[]): Promise<void> {
    for (const secret of secrets) {
      try {
        await this.api.createNamespacedSecret({ namespace: this.options.namespace, body: secret });
      } catch (error) {
        if (!isApiStatus(error, 409)) throw error;
      }
    }
  }

  /**
   * Makes the Kubernetes pod the owner of each, so Kubernetes deletes them with the pod even when someone else
   * deletes the pod. Best effort: the driver deletes the run's Secrets itself anyway.
   */
  async own(secrets: V1Secret[], pod: V1Pod): Promise<void> {
    const patch = ownedByPatch(pod);
    if (!patch) return;
    for (const secret of secrets) {
      const name = secret.metadata?.name;
      if (!name) continue;
      try {
        await this.api.patchNamespacedSecret({ name, namespace: this.options.namespace, body: patch });
      } catch (error) {
        this.logger.warn(
          `could not make ${pod.metadata?.name} the owner of secret ${name}: ${(error as Error).message}`,
        );
      }
    }
  }

  /** Deletes the pod's Secrets (pull secrets, secret variables), but those of run `keepGeneration`. */
  async delete(podId: string, keepGeneration: number | null): Promise<void> {
    const namespace = this.options.namespace;
    const secrets = await this.api.listNamespacedSecret({ namespace, labelSelector: podSelector(podId) });
    for (const secret of secrets.items) {
      const name = secret.metadata?.name;
      const generation = secret.metadata?.labels?.[LABEL_GENERATION];
      if (!name || (keepGeneration !== null && generation === String(keepGeneration))) continue;
      try {
        await this.api.deleteNamespacedSecret({ name, namespace });
      } catch (error) {
        if (!isApiStatus(error, 404)) throw error;
      }
    }
  }
}
