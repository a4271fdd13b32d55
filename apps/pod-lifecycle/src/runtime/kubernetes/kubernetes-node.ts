import { isIPv4 } from 'node:net';
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { HOST_ID, type HealthCode } from '@app/contracts';
import { GPU_RESOURCE } from './kubernetes-pod.js';

/** The GPU feature discovery label naming the node's GPU model (`NVIDIA-A100-SXM4-80GB`). */
export const GPU_PRODUCT_LABEL = 'nvidia.com/gpu.product';

/** A label that marks a node's GPUs unhealthy: the key alone (any value), or key and value. */
export interface LabelMatch {
  key: string;
  value: string | null;
}

export interface NodeHostOptions {
  /** The label holding the node's data center id (KUBE_DATA_CENTER_LABEL). */
  dataCenterLabel: string;
  /**
   * Condition types that, True, mean the node's GPUs are unhealthy (KUBE_GPU_UNHEALTHY_CONDITIONS; by default the
   * conditions NVIDIA's GPU health monitors set, each fatal check a condition named after it).
   */
  unhealthyConditions: readonly string[];
  /** Labels that mean the same (KUBE_GPU_UNHEALTHY_LABELS). */
  unhealthyLabels: readonly LabelMatch[];
}

export type NodeHealth =
  { healthy: true } | { healthy: false; code: HealthCode; reason: string; gpuIndex?: number };

/** The host a node should be, as the scheduler's fleet has it. */
export interface NodeHost {
  id: string;
  dataCenterId: string;
  gpuTypeId: string;
  gpuCount: number;
  publicIp: string;
  /** `spec.unschedulable`: cordoned by Kubernetes. */
  cordoned: boolean;
  health: NodeHealth;
}

/** A node's host, or why the node is not a host of the fleet. */
export type NodeMapping = { host: NodeHost } | { skipped: string };

/** Maps a GPU product label to a catalog GPU type id; null when none fits. */
export type GpuTypeOf = (product: string) => string | null;

/** Lower case, every run of other characters as one dash: `NVIDIA A100 80GB PCIe` ~ `NVIDIA-A100-80GB-PCIe`. */
function normalized(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * The GPU type of a product label: the operator's mapping first (KUBE_GPU_PRODUCT_MAP, the label's value exactly),
 * else the catalog type whose id or display name reads the same once spaces and punctuation are dashes. A
 * `-SHARED` suffix (GPU feature discovery's mark of time-sliced GPUs) is ignored.
 */
export function gpuTypeResolver(
  mapping: Record<string, string>,
  catalog: readonly { id: string; displayName: string }[],
): GpuTypeOf {
  const byName = new Map<string, string>();
  for (const type of catalog) {
    byName.set(normalized(type.displayName), type.id);
    byName.set(normalized(type.id), type.id); // an id wins over another type's display name
  }
  return (product) => {
    const bare = product.replace(/-SHARED$/, '');
    return mapping[product] ?? mapping[bare] ?? byName.get(normalized(bare)) ?? null;
  };
}

/** `A=B,C=D` (KUBE_GPU_PRODUCT_MAP) as a record; values may hold spaces. */
export function parseProductMap(text: string | undefined): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) map[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return map;
}

/** `key,key=value` (KUBE_GPU_UNHEALTHY_LABELS). */
export function parseLabelMatches(text: string | undefined): LabelMatch[] {
  return (text ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter(Boolean)
    .map((term) => {
      const at = term.indexOf('=');
      return at < 0 ? { key: term, value: null } : { key: term.slice(0, at), value: term.slice(at + 1) };
    });
}

/** A Kubernetes quantity of whole devices (`8`); anything else counts as none. */
function count(quantity: string | undefined): number {
  const value = Number(quantity);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

function sentence(text: string): string {
  return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}

/**
 * What a node makes of its host: id = node name; GPU type from the `nvidia.com/gpu.product` label; GPU count =
 * allocatable `nvidia.com/gpu` (capacity while the device plugin withholds some: those GPUs are unhealthy, and the
 * host keeps its size so what its pods hold stays valid); data center from `options.dataCenterLabel`; public IP
 * the first IPv4 ExternalIP, else InternalIP; cordoned when `spec.unschedulable`. Health, the first that holds:
 * Ready not True → NODE_NOT_READY; a GPU condition True → XID (an Xid check), ECC (the memory watch) or
 * GPU_UNHEALTHY; a GPU label → GPU_UNHEALTHY; allocatable below capacity → GPU_UNHEALTHY.
 */
export function nodeHost(node: V1Node, options: NodeHostOptions, gpuTypeOf: GpuTypeOf): NodeMapping {
  const name = node.metadata?.name ?? '';
  if (!HOST_ID.test(name)) return { skipped: `node name "${name}" is not a host id` };
  const labels = node.metadata?.labels ?? {};
  const capacity = count(node.status?.capacity?.[GPU_RESOURCE]);
  if (!capacity) return { skipped: `no ${GPU_RESOURCE} capacity (not a GPU node)` };
  const allocatable = Math.min(count(node.status?.allocatable?.[GPU_RESOURCE]), capacity);
  const product = labels[GPU_PRODUCT_LABEL];
  if (!product) return { skipped: `no ${GPU_PRODUCT_LABEL} label (is GPU feature discovery running on it?)` };
  const gpuTypeId = gpuTypeOf(product);
  if (!gpuTypeId) {
    return { skipped: `GPU product ${product} matches no catalog GPU type (map it in KUBE_GPU_PRODUCT_MAP)` };
  }
  const dataCenterId = labels[options.dataCenterLabel];
  if (!dataCenterId) return { skipped: `no ${options.dataCenterLabel} label (its data center)` };
  const addresses = (node.status?.addresses ?? []).filter((a) => isIPv4(a.address));
  const publicIp = (
    addresses.find((a) => a.type === 'ExternalIP') ?? addresses.find((a) => a.type === 'InternalIP')
  )?.address;
  if (!publicIp) return { skipped: 'no IPv4 ExternalIP or InternalIP address' };
  return {
    host: {
      id: name,
      dataCenterId,
      gpuTypeId,
      gpuCount: allocatable < capacity ? capacity : allocatable,
      publicIp,
      cordoned: node.spec?.unschedulable === true,
      health: nodeHealth(name, node.status?.conditions ?? [], labels, { capacity, allocatable }, options),
    },
  };
}

function nodeHealth(
  name: string,
  conditions: readonly V1NodeCondition[],
  labels: Record<string, string>,
  gpus: { capacity: number; allocatable: number },
  options: NodeHostOptions,
): NodeHealth {
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') {
    const why = [ready?.reason, ready?.message].filter(Boolean).join(': ');
    const state = ready ? `Ready is ${ready.status}` : 'no Ready condition yet';
    return {
      healthy: false,
      code: 'NODE_NOT_READY',
      reason: sentence(`node ${name} is not ready (${state}${why ? `; ${why}` : ''})`),
    };
  }
  const failing = conditions.find((c) => c.status === 'True' && options.unhealthyConditions.includes(c.type));
  if (failing) {
    const code: HealthCode = /xid/i.test(failing.type)
      ? 'XID'
      : /mem/i.test(failing.type)
        ? 'ECC'
        : 'GPU_UNHEALTHY';
    const detail = failing.message || failing.reason;
    return {
      healthy: false,
      code,
      reason: sentence(`${failing.type} on node ${name}${detail ? `: ${detail}` : ''}`),
    };
  }
  const label = options.unhealthyLabels.find(
    (m) => labels[m.key] !== undefined && (m.value === null || labels[m.key] === m.value),
  );
  if (label) {
    return {
      healthy: false,
      code: 'GPU_UNHEALTHY',
      reason: sentence(`node ${name} is labelled ${label.key}=${labels[label.key]}`),
    };
  }
  if (gpus.allocatable < gpus.capacity) {
    const bad = gpus.capacity - gpus.allocatable;
    return {
      healthy: false,
      code: 'GPU_UNHEALTHY',
      reason:
        `${bad} of ${gpus.capacity} GPUs of node ${name} unhealthy: the NVIDIA device plugin withdrew ` +
        `${bad === 1 ? 'it' : 'them'} from allocatable ${GPU_RESOURCE} (a critical Xid or ECC error)`,
    };
  }
  return { healthy: true };
}
