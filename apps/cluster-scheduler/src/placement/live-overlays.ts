import type { EntityManager } from 'typeorm';
import type { Block } from '../overlay/overlay.js';

/**
 * The overlay networks of the live clusters (VXLAN id and address block each), which a new cluster's must not
 * overlap. The clusters feature answers (ClustersRepository; scheduler.module.ts wires it), so placement, which
 * allocates a cluster's overlay with its pods, does not depend on clusters.
 */
export abstract class LiveOverlays {
  abstract liveOverlays(manager: EntityManager): Promise<{ vxlanId: number; block: Block }[]>;
}
