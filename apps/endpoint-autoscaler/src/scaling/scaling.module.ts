import { Module } from '@nestjs/common';
import { PersistenceModule } from '../persistence.module.js';
import { ControlLoop } from './control-loop.service.js';
import { EndpointReconciler } from './endpoint-reconciler.js';
import { PlacementCatalog } from './placement-catalog.js';

@Module({
  imports: [PersistenceModule],
  providers: [PlacementCatalog, EndpointReconciler, ControlLoop],
})
export class ScalingModule {}
