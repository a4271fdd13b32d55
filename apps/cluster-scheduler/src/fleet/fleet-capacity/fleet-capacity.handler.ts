import { Injectable } from '@nestjs/common';
import { Subjects, type FleetCapacityView } from '@app/contracts';
import { QueryHandler } from '@app/messaging';
import { FleetViewsRepository } from '../fleet-views.repository.js';

/** `fleet.qry.capacity`: per data center and GPU (or CPU) type, total = allocated + free + unavailable. */
@Injectable()
export class FleetCapacityHandler {
  constructor(private readonly views: FleetViewsRepository) {}

  @QueryHandler(Subjects.fleet.capacity)
  handle(): Promise<FleetCapacityView> {
    return this.views.capacity();
  }
}
