import type { EntityManager } from 'typeorm';

/**
 * Whether a pod being reserved is a cluster member (a stopped member resumed on its host), so its reservation
 * names the cluster. The clusters feature answers (ClustersRepository; scheduler.module.ts wires it), so placement
 * does not depend on clusters, which places its members through placement.
 */
export abstract class ClusterMembership {
  /** The cluster the pod is a member of, or null for a standalone pod. */
  abstract clusterOfMember(podId: string, manager: EntityManager): Promise<string | null>;

  /** `clusterOfMember` of several pods in one statement: the members' clusters by pod id. */
  abstract clustersOfMembers(podIds: readonly string[], manager: EntityManager): Promise<Map<string, string>>;
}
