import type { EntityManager } from 'typeorm';

/**
 * The overlay networks of the live clusters (VXLAN id and CIDR each), which a new cluster's must not overlap. The
 * clusters feature answers (ClustersRepository; scheduler.module.ts wires it), so placement, which allocates a
 * cluster's overlay with its pods, does not depend on clusters.
 */
export abstract class LiveOverlays {
  abstract liveOverlays(manager: EntityManager): Promise<{ vxlanId: number; cidr: string }[]>;
}
