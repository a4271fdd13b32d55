import { Controller, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor, CpuTypeView, DataCenterView, GpuTypeView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { CatalogService } from './catalog.service.js';

/** `/v2/catalog`: GPU types (with maxCount), CPU types and data centers, each with live availability. */
@ApiTags('Catalog')
@Auth({ key: 'bearer' })
@Controller('v2/catalog')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get('gpus')
  @Operation('List the GPU types', {
    returns: 'GpuTypeView',
    array: true,
    description: 'Each with its maxCount per pod and live availability.',
  })
  gpus(@CurrentActor() actor: Actor): Promise<GpuTypeView[]> {
    return this.catalog.gpuTypes(actor);
  }

  @Get('gpus/:gpuTypeId')
  @Operation('Get a GPU type', {
    returns: 'GpuTypeView',
    description: 'The id as the list names it, URL-encoded (`NVIDIA%20A100%2080GB%20PCIe`).',
  })
  gpu(@Param('gpuTypeId') id: string, @CurrentActor() actor: Actor): Promise<GpuTypeView> {
    return this.catalog.gpuType(id, actor);
  }

  @Get('cpus')
  @Operation('List the CPU types', { returns: 'CpuTypeView', array: true })
  cpus(@CurrentActor() actor: Actor): Promise<CpuTypeView[]> {
    return this.catalog.cpuTypes(actor);
  }

  @Get('datacenters')
  @Operation('List the data centers', {
    returns: 'DataCenterView',
    array: true,
    description: 'Region and availability per GPU and CPU type.',
  })
  dataCenters(@CurrentActor() actor: Actor): Promise<DataCenterView[]> {
    return this.catalog.dataCenters(actor);
  }
}
