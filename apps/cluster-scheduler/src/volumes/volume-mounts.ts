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

/**
 * The lock that every change to what mounts a volume holds until it commits (placements, releases, cluster creates
 * and deletes all take the placement ledger's), taken by a volume's delete before it counts mounts: such a change
 * running beside it in another lane is then seen as done or as not begun, as a rebuild, which applies one command
 * after another in the order their processed rows were written, will see it.
 */
export abstract class VolumeMountsLock {
  abstract lock(manager: EntityManager): Promise<void>;
}
