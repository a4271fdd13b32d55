import type { EntityManager } from 'typeorm';
import type { WorkerCounts } from '@app/contracts';

/**
 * What the jobs side asks of the workers: how many are alive, in which state (queue statistics), and which went
 * quiet (the sweeper requeues their jobs). The workers feature answers (WorkersRepository; queue.module.ts wires
 * it), so jobs does not depend on workers, which take and finish jobs.
 */
export abstract class WorkerRoster {
  /** Marks lost the workers not seen since `lostBefore`; their ids. */
  abstract markLost(lostBefore: Date, now: Date, manager: EntityManager): Promise<string[]>;
  /** Forgets workers lost before `before`. */
  abstract deleteLostBefore(before: Date, manager: EntityManager): Promise<unknown>;
  /** Workers of the endpoint by state, among those alive (seen since `lostBefore`, or registered since `initSince`). */
  abstract counts(
    endpointId: string,
    lostBefore: Date,
    initSince: Date,
  ): Promise<WorkerCounts & { recycle: string[] }>;
}
