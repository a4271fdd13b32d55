import { Module } from '@nestjs/common';
import { FleetController } from './fleet.controller.js';
import { FleetService } from './fleet.service.js';

/** The operators' fleet routes; the cluster scheduler owns the fleet (docs/api.md, "Fleet"). */
@Module({
  controllers: [FleetController],
  providers: [FleetService],
})
export class FleetModule {}
