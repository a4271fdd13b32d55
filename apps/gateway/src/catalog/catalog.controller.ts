import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  TEMPLATE_SOURCES,
  type Actor,
  type CpuTypeView,
  type DataCenterView,
  type GpuTypeView,
  type TemplateList,
} from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation, TextQuery } from '../openapi/openapi.decorators.js';
import { toTemplateV2View } from '../templates/template-v2.mapper.js';
import { CatalogService } from './catalog.service.js';

/**
 * RunPod's `include=AVAILABILITY` (with `product`, `vcpuCount`) or `GPU_AVAILABILITY`/`CPU_AVAILABILITY` asks for
 * availability, which the catalog here always carries (it is live and cheap): accepted and ignored, as the lists
 * take them, so the MCP server's calls with them are answered.
 */
const AVAILABILITY_ALWAYS = 'accepted for compatibility: availability is always included';

/**
 * `/v2/catalog`: GPU types (with maxCount), CPU types and data centers, each with live availability, and the
 * public templates anyone may start from.
 */
@ApiTags('Catalog')
@Auth({ key: 'bearer' })
@Resource('catalog')
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

  @Get('cpus/:cpuTypeId')
  @TextQuery('include', AVAILABILITY_ALWAYS)
  @TextQuery('product', AVAILABILITY_ALWAYS)
  @TextQuery('vcpuCount', AVAILABILITY_ALWAYS)
  @Operation('Get a CPU type', { returns: 'CpuTypeView', description: 'The entry of the list with this id.' })
  cpu(@Param('cpuTypeId') id: string, @CurrentActor() actor: Actor): Promise<CpuTypeView> {
    return this.catalog.cpuType(id, actor);
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

  @Get('datacenters/:dataCenterId')
  @TextQuery('include', AVAILABILITY_ALWAYS)
  @Operation('Get a data center', {
    returns: 'DataCenterView',
    description:
      'The entry of the list with this id (`EU-RO-1`): region and availability per GPU and CPU type.',
  })
  dataCenter(@Param('dataCenterId') id: string, @CurrentActor() actor: Actor): Promise<DataCenterView> {
    return this.catalog.dataCenter(id, actor);
  }

  @Get('templates')
  @TextQuery(
    'source',
    'the slice of the catalog: `official` (default), `verified` or `community`',
    TEMPLATE_SOURCES,
  )
  @Operation('List the public templates', {
    returns: 'TemplateList',
    description:
      "The operator's catalog (`public: true`): anyone may start a pod or an endpoint from one (`templateId`), " +
      'read it at `/v2/templates/{id}`, nobody may change it. `verified` and `community` stay empty unless the ' +
      'operator lists templates there.',
  })
  async templates(
    @Query('source') source: string | undefined,
    @CurrentActor() actor: Actor,
  ): Promise<TemplateList> {
    return { templates: (await this.catalog.templates(source, actor)).map(toTemplateV2View) };
  }
}
