import type { EntityManager } from 'typeorm';

/**
 * The placement ledger's lock, which a quota change takes as every placement does, so that the change and the
 * admissions are applied one at a time, each seeing the others (answered by PlacementRepository.lockLedger, wired
 * in SchedulerModule: quotas sit below placement and may not import it).
 */
export abstract class LedgerLock {
  abstract lock(manager: EntityManager): Promise<void>;
}
