import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '@app/contracts';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { DEFAULT_PLUGINS } from './plugins/index.js';
import { consideredDataCenters, place, type Assignment, type PlacementRequest } from './placement.js';
import { LostRaceError, PlacementRepository } from './placement.repository.js';

export interface Plan {
  dataCenterId: string;
  assignments: Assignment[];
}

/** Constraints a concurrent commit can make us lose: then we plan again on a fresh snapshot. */
const RETRYABLE_CONSTRAINTS = new Set([
  'host_ports_pkey',
  'clusters_vxlan_live_uq',
  'clusters_cidr_live_excl',
]);

function isLostRace(error: unknown): boolean {
  if (error instanceof LostRaceError) return true;
  const e = error as {
    code?: string;
    constraint?: string;
    driverError?: { code?: string; constraint?: string };
  };
  const code = e?.driverError?.code ?? e?.code;
  const constraint = e?.driverError?.constraint ?? e?.constraint;
  if (code === '40P01' || code === '40001') return true;
  return (
    (code === '23505' || code === '23P01') &&
    constraint !== undefined &&
    RETRYABLE_CONSTRAINTS.has(constraint)
  );
}

/**
 * Plan (pure, on a snapshot) then commit (in a savepoint of the command's transaction); a commit that loses a
 * race to another transaction is rolled back to the savepoint and planned again, so nothing is left half-taken.
 */
@Injectable()
export class PlacementService {
  private readonly logger = new Logger('placement');

  constructor(
    private readonly repository: PlacementRepository,
    private readonly config: ClusterSchedulerConfig,
  ) {}

  async placeAndCommit<T>(
    manager: EntityManager,
    request: PlacementRequest,
    noCapacity: (considered: string[]) => DomainError,
    commit: (plan: Plan, savepoint: EntityManager) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const snapshot = await this.repository.snapshot(manager, request);
      const result = place(snapshot, request, DEFAULT_PLUGINS);
      if (!result.ok) throw noCapacity(result.considered);
      try {
        return await manager.transaction((savepoint) => commit(result, savepoint));
      } catch (error) {
        if (!isLostRace(error)) throw error;
        if (attempt >= this.config.PLACEMENT_MAX_ATTEMPTS) {
          // Nearly full and contended: say what was asked and where, as for no capacity at all.
          const refusal = noCapacity(
            consideredDataCenters(snapshot.dataCenters, request, DEFAULT_PLUGINS.dataCenterFilters).map(
              (dc) => dc.id,
            ),
          );
          throw new DomainError(
            refusal.code,
            `${refusal.message} (the capacity planned was taken by concurrent requests ${attempt} times in a row; try again)`,
            refusal.errors,
          );
        }
        this.logger.debug(
          `placement attempt ${attempt} lost a race (${(error as Error).message}); planning again`,
        );
        // Jitter, so replicas that keep planning for the same last hosts stop colliding in lock step. Timing only:
        // it changes no choice a replay makes.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }
}
