import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { WorkerEntity } from '../workers/worker.entity.js';
import { WorkersRepository } from '../workers/workers.repository.js';
import type { ScalingEventEntity } from './scaling-event.entity.js';
import { ScalingEventsRepository } from './scaling-events.repository.js';

/** What one step of the applier writes: worker rows and the scaling events that explain them. */
export interface ScalingWrites {
  inserted: WorkerEntity[];
  saved: WorkerEntity[];
  removed: string[];
  events: ScalingEventEntity[];
}

export function noWrites(): ScalingWrites {
  return { inserted: [], saved: [], removed: [], events: [] };
}

/**
 * The control loop's unit of work: the rows a plan (or the answers to its commands) changes and the events that
 * record why commit together or not at all, so the decision log never tells of a change the table does not have.
 */
@Injectable()
export class ScalingStateRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly workers: WorkersRepository,
    private readonly events: ScalingEventsRepository,
  ) {}

  async commit(writes: ScalingWrites): Promise<void> {
    const { inserted, saved, removed, events } = writes;
    if (!inserted.length && !saved.length && !removed.length && !events.length) return;
    await this.dataSource.transaction(async (manager) => {
      await this.workers.delete(removed, manager);
      await this.workers.insert(inserted, manager);
      await this.workers.save(saved, manager);
      await this.events.insert(events, manager);
    });
  }
}
