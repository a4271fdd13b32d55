import type { V1Affinity, V1EnvVar, V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { lbWorkerPorts, PodStatus, type ObservedStatus } from '@app/contracts';
import type { PodRun } from '../runtime-driver.js';
import { containerPorts } from './kubernetes-ports.js';

/** Labels on every object the driver creates: selection by pod and recognition of a run. */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'gpucp-pod-lifecycle';
export const LABEL_POD_ID = 'gpucp.io/pod-id';
export const LABEL_GENERATION = 'gpucp.io/generation';
export const LABEL_DISK_EPOCH = 'gpucp.io/disk-epoch';
/**
 * On the pods of load-balancing workers: the NetworkPolicy of deploy/runtime/kubernetes lets only the gateway and
 * pod-lifecycle reach them (docs/adr/0026), on any port (PORT is the endpoint's choice).
 */
export const LABEL_LB_WORKER = 'gpucp.io/lb-worker';

/** The extended resource of NVIDIA's device plugin. */
export const GPU_RESOURCE = 'nvidia.com/gpu';
export const CONTAINER_NAME = 'pod';
/** The pod's id as the container sees it in RUNPOD_DC_ID, when the run does not name it. */
const DC_ENV = 'RUNPOD_DC_ID';

export interface KubernetesPodOptions {
  namespace: string;
  dataCenterLabel: string;
  gpuTypeLabel: string;
  /** PVC name of a network volume; `{volumeId}` is replaced by the volume's id. */
  volumeClaimPattern: string;
  /**
   * Hosts are the cluster's nodes (the node watch, `KUBE_NODE_WATCH`): a pod runs on the node placement chose, by
   * a required node affinity on the node's name (Kubernetes' scheduler still checks its resources and taints).
   * Otherwise hosts are the fleet file's, and pods go to a node of their data center and GPU type by label.
   */
  pinToNode?: boolean;
}

/** A run as the Kubernetes driver reads it (the data center falls back to the container's `RUNPOD_DC_ID`). */
export type KubernetesPodRun = PodRun;

/** A DNS-1123 label made of `prefix-<id>` (lower case, other characters as `-`, at most 63 characters). */
function dnsName(prefix: string, id: string, suffix: string): string {
  const cleaned = id.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const name = `${prefix}-${cleaned}`.slice(0, 63 - suffix.length - 1);
  return `${name.replace(/-+$/, '')}-${suffix}`;
}

/** The Kubernetes pod of run `generation` of a pod (one name per run: a new run never waits for an old name). */
export function kubePodName(podId: string, generation: number): string {
  return dnsName('gpucp', podId, `g${generation}`);
}

/** The image pull secret of run `generation` of a pod. */
export function pullSecretName(podId: string, generation: number): string {
  return dnsName('gpucp-pull', podId, `g${generation}`);
}

/** The Secret holding the secret variables of run `generation` of a pod (the pod spec refers to its keys). */
export function envSecretName(podId: string, generation: number): string {
  return dnsName('gpucp-env', podId, `g${generation}`);
}

/** A label value: at most 63 characters of A-Z a-z 0-9 . _ -, starting and ending alphanumerically. */
export function labelValue(value: string): string {
  return value
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

/** Selects every object of one pod (every run). */
export function podSelector(podId: string): string {
  return `${LABEL_MANAGED_BY}=${MANAGED_BY},${LABEL_POD_ID}=${labelValue(podId)}`;
}

/** Selects every object the driver made in the namespace. */
export const MANAGED_SELECTOR = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;

/** The labels of every object of one run: selection by pod (`podSelector`) and by generation. */
export function runLabels(run: Pick<PodRun, 'podId' | 'generation' | 'diskEpoch'>): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_POD_ID]: labelValue(run.podId),
    [LABEL_GENERATION]: String(run.generation),
    [LABEL_DISK_EPOCH]: String(run.diskEpoch),
  };
}

/** A load-balancing worker's container ports: PORT and PORT_HEALTH as TCP, besides the pod's own ports. */
export function lbPorts(run: Pick<PodRun, 'env' | 'ports'>): string[] {
  const lb = lbWorkerPorts(run.env);
  if (!lb) return run.ports;
  return [...run.ports, `${lb.port}/tcp`, `${lb.healthPort}/tcp`];
}

/** `dockerArgs` split like a shell would split plain words and quoted strings (no expansion). */
export function splitArgs(args: string | null): string[] {
  if (!args?.trim()) return [];
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of args.matchAll(pattern)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]));
  }
  return words;
}

/**
 * The container's variables, by name: plain ones inline, the secret ones (which win) only as references to the
 * run's Secret (`envSecretManifest`), so no secret value is ever in the pod spec.
 */
export function containerEnvVars(run: PodRun): V1EnvVar[] {
  const secret = new Set(run.secretEnv.names);
  const secretName = envSecretName(run.podId, run.generation);
  return [
    ...Object.entries(run.env)
      .filter(([name]) => !secret.has(name))
      .map(([name, value]) => ({ name, value })),
    ...run.secretEnv.names.map((name) => ({
      name,
      valueFrom: { secretKeyRef: { name: secretName, key: name } },
    })),
  ].sort((a, b) => a.name.localeCompare(b.name));
}

/** Only the node named `node` (as a DaemonSet's pods are pinned). */
function nodeAffinity(node: string): V1Affinity {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
      },
    },
  };
}

/** The Kubernetes pod of one run of a pod. */
export function podManifest(run: KubernetesPodRun, options: KubernetesPodOptions): V1Pod {
  const pinned = options.pinToNode && run.hostId ? run.hostId : null;
  const nodeSelector: Record<string, string> = {};
  const dataCenterId = run.dataCenterId ?? run.env[DC_ENV];
  if (!pinned && dataCenterId) nodeSelector[options.dataCenterLabel] = labelValue(dataCenterId);
  if (!pinned && run.gpuTypeId && run.gpuCount > 0) {
    nodeSelector[options.gpuTypeLabel] = labelValue(run.gpuTypeId);
  }

  const volumes: V1Volume[] = [
    { name: 'container-disk', emptyDir: { sizeLimit: `${run.containerDiskGb}Gi` } },
  ];
  const volumeMounts: V1VolumeMount[] = [];
  if (run.networkVolumeId) {
    volumes.push({
      name: 'network-volume',
      persistentVolumeClaim: {
        claimName: options.volumeClaimPattern.replaceAll('{volumeId}', run.networkVolumeId),
      },
    });
    volumeMounts.push({ name: 'network-volume', mountPath: run.volumeMountPath ?? '/workspace' });
  }
  // The container disk is the container's writable scratch space; it is mounted where RunPod images expect the
  // disk when no network volume takes that place.
  volumeMounts.push({ name: 'container-disk', mountPath: '/container-disk' });

  const gpus = run.gpuCount > 0 ? { [GPU_RESOURCE]: String(run.gpuCount) } : undefined;
  const args = splitArgs(run.args);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: kubePodName(run.podId, run.generation),
      namespace: options.namespace,
      labels: { ...runLabels(run), ...(lbWorkerPorts(run.env) ? { [LABEL_LB_WORKER]: 'true' } : {}) },
    },
    spec: {
      // The status machine decides what happens after the container ends; Kubernetes never restarts it.
      restartPolicy: 'Never',
      hostname: dnsName('pod', run.podId, `g${run.generation}`),
      ...(Object.keys(nodeSelector).length ? { nodeSelector } : {}),
      ...(pinned ? { affinity: nodeAffinity(pinned) } : {}),
      ...(run.pullSecret ? { imagePullSecrets: [{ name: pullSecretName(run.podId, run.generation) }] } : {}),
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      containers: [
        {
          name: CONTAINER_NAME,
          image: run.image,
          ...(args.length ? { args } : {}),
          env: containerEnvVars(run),
          ports: containerPorts(lbPorts(run)),
          ...(gpus ? { resources: { requests: gpus, limits: gpus } } : {}),
          volumeMounts,
        },
      ],
      volumes,
    },
  };
}

/** The generation a Kubernetes pod runs (from its label), or null if it is not one of ours. */
export function runGeneration(pod: V1Pod): number | null {
  const value = Number(pod.metadata?.labels?.[LABEL_GENERATION]);
  return Number.isInteger(value) ? value : null;
}

/** What a Kubernetes pod shows: PROVISIONING (nothing to report yet) or an observation. */
export interface KubeObservation {
  status: typeof PodStatus.Provisioning | ObservedStatus;
  reason?: string;
  exitCode?: number;
}

/** Container waiting reasons that mean the container will not start without someone changing something. */
const FAILED_WAITING_REASONS = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);
/** Container waiting reasons of a container being created (the image is pulled, the container made). */
const CREATING_WAITING_REASONS = new Set(['ContainerCreating', 'PodInitializing']);

function withMessage(reason: string, message: string | undefined): string {
  return message ? `${reason}: ${message}` : reason;
}

/**
 * Maps a Kubernetes pod to what the driver reports. Pending → PROVISIONING (not reported), Pending with its
 * container being created → STARTING, Running and ready → RUNNING (running but not ready → STARTING), Succeeded
 * → EXITED, Failed or a container waiting on CrashLoopBackOff, ImagePullBackOff, ErrImagePull (and the other
 * reasons that need a change to recover) → ERROR with the reason; Unknown (node unreachable) or a pod being
 * deleted → null (nothing to report).
 */
export function observePod(pod: V1Pod): KubeObservation | null {
  if (pod.metadata?.deletionTimestamp) return null;
  const status = pod.status;
  const container = status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME);
  const waiting = container?.state?.waiting;
  const terminated = container?.state?.terminated;

  const phase = status?.phase ?? 'Pending';
  switch (phase) {
    case 'Succeeded':
      return { status: PodStatus.Exited, exitCode: 0, reason: 'the container exited with code 0' };
    case 'Failed': {
      if (terminated) {
        return {
          status: PodStatus.Error,
          exitCode: terminated.exitCode,
          reason: withMessage(
            `the container exited with code ${terminated.exitCode}${terminated.reason ? ` (${terminated.reason})` : ''}`,
            terminated.message,
          ),
        };
      }
      if (waiting?.reason) {
        return { status: PodStatus.Error, reason: withMessage(waiting.reason, waiting.message) };
      }
      return { status: PodStatus.Error, reason: withMessage(status?.reason ?? 'Failed', status?.message) };
    }
    case 'Pending':
    case 'Running': {
      if (waiting?.reason && FAILED_WAITING_REASONS.has(waiting.reason)) {
        return { status: PodStatus.Error, reason: withMessage(waiting.reason, waiting.message) };
      }
      if (phase === 'Pending') {
        return waiting?.reason && CREATING_WAITING_REASONS.has(waiting.reason)
          ? { status: PodStatus.Starting }
          : { status: PodStatus.Provisioning };
      }
      if (container?.ready) return { status: PodStatus.Running };
      // Running phase but the container ended (restartPolicy Never): the phase follows on the next read.
      if (terminated) return null;
      return { status: PodStatus.Starting };
    }
    default:
      return null;
  }
}
