import { Module } from '@nestjs/common';
import { Clock } from '../clock.js';
import { PersistenceModule } from '../persistence.module.js';
import { ControlLoop } from './control-loop.service.js';
import { EndpointReconciler } from './endpoint-reconciler.js';
import { LbLoadBoard } from './lb-load-board.js';
import { PlacementCatalog } from './placement-catalog.js';
import { ScalingApplier } from './scaling-applier.js';
import { ScalingStateRepository } from './scaling-state.repository.js';
import { TickSnapshots } from './tick-snapshot.js';
import { WaitReasonTracker } from './wait-reason-tracker.js';
import { WorkerPods } from './worker-pods.js';

@Module({
  imports: [PersistenceModule],
  providers: [
    Clock,
    PlacementCatalog,
    ScalingStateRepository,
    LbLoadBoard,
    WorkerPods,
    ScalingApplier,
    WaitReasonTracker,
    TickSnapshots,
    EndpointReconciler,
    ControlLoop,
  ],
})
export class ScalingModule {}
