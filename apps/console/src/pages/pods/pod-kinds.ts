import type { PodV2View } from '@app/contracts';

/**
 * What a pod in the list is: the user's own (started as a pod), a serverless endpoint's worker (the autoscaler
 * started it: `endpointId`) or a cluster member (`cluster`). `GET /v2/pods` lists them all (with
 * `includeClusterPods=true`) and filters nothing else, so the console sorts them apart.
 */
export type PodKind = 'pods' | 'workers' | 'members' | 'all';

export const POD_KINDS: readonly { id: PodKind; label: string }[] = [
  { id: 'pods', label: 'Your pods' },
  { id: 'workers', label: 'Serverless workers' },
  { id: 'members', label: 'Cluster members' },
  { id: 'all', label: 'All' },
];

export function kindOf(pod: PodV2View): Exclude<PodKind, 'all'> {
  return pod.cluster ? 'members' : pod.endpointId ? 'workers' : 'pods';
}

/** Newest first (the API answers oldest first), the id breaking ties as the API's own order does. */
export function newestFirst(a: PodV2View, b: PodV2View): number {
  return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}
