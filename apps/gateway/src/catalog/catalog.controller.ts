import { Controller, Get } from '@nestjs/common';
import type { Actor, CpuTypeView, DataCenterView, GpuTypeView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { CatalogService } from './catalog.service.js';

/** `/v2/catalog`: GPU types (with maxCount), CPU types and data centers, each with live availability. */
@Auth({ key: 'bearer' })
@Controller('v2/catalog')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get('gpus')
  gpus(@CurrentActor() actor: Actor): Promise<GpuTypeView[]> {
    return this.catalog.gpuTypes(actor);
  }

  @Get('cpus')
  cpus(@CurrentActor() actor: Actor): Promise<CpuTypeView[]> {
    return this.catalog.cpuTypes(actor);
  }

  @Get('datacenters')
  dataCenters(@CurrentActor() actor: Actor): Promise<DataCenterView[]> {
    return this.catalog.dataCenters(actor);
  }
}
