import type { V1OwnerReference, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { PodRun, PullSecret } from '../runtime-driver.js';
import { envSecretName, pullSecretName, runLabels, type KubernetesPodOptions } from './kubernetes-pod.js';

/**
 * The Secrets of one run of a pod: its image pull secret and its secret variables. Each carries the run's labels
 * (the driver deletes them with the run's pod) and, once the pod exists, an owner reference to it (Kubernetes
 * deletes them with the pod whoever deletes it). Building one opens the secret values, which may throw.
 */

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The registry of an image reference (Docker Hub when the first part is not a host). */
export function imageRegistry(image: string): string {
  const first = image.split('/')[0];
  const isHost = image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  return isHost ? first : 'https://index.docker.io/v1/';
}

/** The `kubernetes.io/dockerconfigjson` secret of a run; opens the password (may throw). */
export function pullSecretManifest(
  run: PodRun,
  secret: PullSecret,
  registry: string,
  options: KubernetesPodOptions,
): V1Secret {
  const password = secret.password();
  if (!password) throw new Error('empty password');
  const auth = base64(`${secret.username}:${password}`);
  const config = { auths: { [registry]: { username: secret.username, password, auth } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: pullSecretName(run.podId, run.generation),
      namespace: options.namespace,
      labels: runLabels(run),
    },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': base64(JSON.stringify(config)) },
  };
}

/** The Opaque secret with the run's secret variables, one key per variable; opens them (may throw). */
export function envSecretManifest(run: PodRun, options: KubernetesPodOptions): V1Secret {
  const values = run.secretEnv.open();
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: envSecretName(run.podId, run.generation),
      namespace: options.namespace,
      labels: runLabels(run),
    },
    type: 'Opaque',
    immutable: true,
    data: Object.fromEntries(run.secretEnv.names.map((name) => [name, base64(values[name])])),
  };
}

/** A JSON patch making `pod` the owner of a Secret (the garbage collector deletes the Secret with the pod). */
export function ownedByPatch(pod: V1Pod): object[] | null {
  const { name, uid } = pod.metadata ?? {};
  if (!name || !uid) return null;
  const owner: V1OwnerReference = { apiVersion: 'v1', kind: 'Pod', name, uid };
  return [{ op: 'add', path: '/metadata/ownerReferences', value: [owner] }];
}
