import type { EntityManager } from 'typeorm';
import type { WorkerCounts } from '@app/contracts';
import type { StatementPart } from '@app/database';

/**
 * What the jobs side asks of the workers: how many are alive, in which state (queue statistics), which went quiet
 * (the sweeper requeues their jobs), and whether a worker that asks for jobs may get them (a take). The workers feature answers (WorkersRepository; queue.module.ts wires
 * it), so jobs does not depend on workers, which take and finish jobs.
 */
export interface WorkerStates extends WorkerCounts {
  recycle: string[];
  initializingIds: string[];
  /** Workers holding a lease now. */
  busyIds: string[];
}

/** A worker the sweep found lost: its endpoint, and the account it worked for when the register named it. */
export interface LostWorker {
  id: string;
  endpointId: string;
  ownerId: string | null;
}

export abstract class WorkerRoster {
  /**
   * Records a take's call of the worker made at `heardAt` (it polls, so it has started and is healthy), as a part
   * of the take's leasing statement: a data-modifying statement answering one row whose `alive` says whether the
   * worker is alive (not lost, and a heartbeat since `lostBefore`): nothing is leased to one that is not.
   */
  abstract pollingTouch(endpointId: string, workerId: string, heardAt: Date, lostBefore: Date): StatementPart;
  /** Marks lost the workers not seen since `lostBefore`; who they are. */
  abstract markLost(lostBefore: Date, now: Date, manager: EntityManager): Promise<LostWorker[]>;
  /** Marks lost at `now` the workers of these ids that are not lost yet (their pods are gone); who they are. */
  abstract markGone(workerIds: string[], now: Date, manager: EntityManager): Promise<LostWorker[]>;
  /** Forgets workers lost before `before`. */
  abstract deleteLostBefore(before: Date, manager: EntityManager): Promise<unknown>;
  /**
   * Workers of each endpoint by state, among those alive (seen since `lostBefore`, or registered since
   * `initSince`), with the ids of those that asked to be recycled and of those still initializing; one statement
   * for all the endpoints (one with no live worker is absent).
   */
  abstract counts(
    endpointIds: string[],
    lostBefore: Date,
    initSince: Date,
  ): Promise<Map<string, WorkerStates>>;
}
