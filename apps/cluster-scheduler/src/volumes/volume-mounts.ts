import type { EntityManager } from 'typeorm';

/**
 * Who still mounts a network volume, asked before it is deleted. The features that mount volumes answer (their
 * repositories implement these; scheduler.module.ts wires them), so volumes depends on neither clusters nor
 * placement, which both check a volume before mounting it.
 */
export abstract class ClustersMountingVolume {
  /** How many live clusters mount the volume. */
  abstract mountingVolume(volumeId: string, manager: EntityManager): Promise<number>;
}

export abstract class PodsMountingVolume {
  /** How many reserved pods mount the volume. */
  abstract mountingVolume(volumeId: string, manager: EntityManager): Promise<number>;
}
