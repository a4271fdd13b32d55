import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  CordonHostInput,
  DrainHostInput,
  GpuFaultInput,
  HOST_SOURCES,
  HOST_STATES,
  HostHealthInput,
  ListHostsQuery,
  RegisterHostInput,
  type FleetCapacityView,
  type HostDetailView,
  type HostListView,
} from '@app/contracts';
import type { Principal } from '../accounts/principal.js';
import { Auth, CurrentPrincipal, Resource } from '../auth/auth.decorators.js';
import { IntQuery, Operation, TextQuery } from '../openapi/openapi.decorators.js';
import { FleetService } from './fleet.service.js';

const INVALID_STATE = 'the host is GONE, or the change does not apply to its state (the detail says why)';

/**
 * `/v2/fleet`: the hosts pods are placed on and their capacity, for the deployment's operators only (keys of scope
 * `operator`). Each change is a recorded command of the cluster scheduler; the answer is the host's view after it.
 */
@ApiTags('Fleet')
@Auth({ key: 'bearer', operator: true })
@Resource('team')
@Controller('v2/fleet')
export class FleetController {
  constructor(private readonly fleet: FleetService) {}

  @Get('hosts')
  @TextQuery('dataCenterId', 'hosts of this data center')
  @TextQuery('gpuTypeId', 'hosts of this GPU type')
  @TextQuery('state', 'hosts in this shown state', HOST_STATES)
  @TextQuery('source', 'hosts registered this way', HOST_SOURCES)
  @TextQuery('after', 'the `next` of the page before (hosts are ordered by id)')
  @IntQuery('limit', { min: 1, max: 1000 }, 'hosts per page')
  @Operation('The hosts of the fleet, filtered, a page at a time (operators only)', {
    returns: 'HostListView',
    description:
      "Each host's shown state (GONE, UNHEALTHY, DRAINING, CORDONED or READY: the first that holds), its " +
      'capacity and what pods hold of it, its health and the cordon or drain with who set it and why.',
    errors: { 422: 'an unknown filter, state or source, or a limit outside 1-1000 (each named in `errors`)' },
  })
  list(@Query() query: ListHostsQuery, @CurrentPrincipal() principal: Principal): Promise<HostListView> {
    return this.fleet.list(principal, query);
  }

  @Get('hosts/:hostId')
  @Operation('A host, with the pods holding capacity on it (operators only)', { returns: 'HostDetailView' })
  get(@Param('hostId') hostId: string, @CurrentPrincipal() principal: Principal): Promise<HostDetailView> {
    return this.fleet.host(principal, hostId);
  }

  @Post('hosts')
  @HttpCode(200)
  @Operation('Register a host, or update the capacity of one (operators only)', {
    returns: 'HostDetailView',
    description:
      'For the local and simulated runtimes and for fleets outside Kubernetes (there the node watch registers ' +
      'hosts). A new host is READY; a GONE one registered again comes back READY. Registered with source `api`.',
    errors: {
      400: 'an unknown data center, GPU type or CPU type',
      409: 'fewer GPUs, CPU slots or ports than its pods hold, or another data center for a host that holds pods',
    },
  })
  register(
    @Body() dto: RegisterHostInput,
    @CurrentPrincipal() principal: Principal,
  ): Promise<HostDetailView> {
    return this.fleet.register(principal, dto);
  }

  @Post('hosts/:hostId/cordon')
  @HttpCode(200)
  @Operation('Cordon a host: no new placements on it; what runs there stays (operators only)', {
    returns: 'HostDetailView',
    description: 'A draining host cordoned stops draining. Cordoning a cordoned host changes nothing.',
    errors: { 409: INVALID_STATE },
  })
  cordon(
    @Param('hostId') hostId: string,
    @Body() dto: CordonHostInput,
    @CurrentPrincipal() principal: Principal,
  ): Promise<HostDetailView> {
    return this.fleet.cordon(principal, hostId, dto);
  }

  @Post('hosts/:hostId/uncordon')
  @HttpCode(200)
  @Operation('Uncordon a host: READY again, a drain called off (operators only)', {
    returns: 'HostDetailView',
    errors: { 409: INVALID_STATE },
  })
  uncordon(
    @Param('hostId') hostId: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<HostDetailView> {
    return this.fleet.uncordon(principal, hostId);
  }

  @Post('hosts/:hostId/drain')
  @HttpCode(200)
  @Operation(
    'Drain a host: its workers are replaced elsewhere, its pods stopped at a deadline (operators only)',
    {
      returns: 'HostDetailView',
      description:
        'No new placements. Serverless workers on it are replaced on other hosts first, then stopped; users are ' +
        'told (statusReason `HOST_DRAINING: ...` with the deadline) and their pods stopped at the deadline ' +
        '(`HOST_DRAINED: ...`). `drained` turns true once nothing holds capacity on it: it may then be removed.',
      errors: { 409: INVALID_STATE },
    },
  )
  drain(
    @Param('hostId') hostId: string,
    @Body() dto: DrainHostInput,
    @CurrentPrincipal() principal: Principal,
  ): Promise<HostDetailView> {
    return this.fleet.drain(principal, hostId, dto);
  }

  @Delete('hosts/:hostId')
  @Operation('Remove a drained host from the fleet: it goes GONE (operators only)', {
    returns: 'HostDetailView',
    description: 'Only a host no pod holds capacity on: drain it first. Registering it again brings it back.',
    errors: { 409: 'pods still hold capacity on the host (drain it first), or it is GONE already' },
  })
  remove(@Param('hostId') hostId: string, @CurrentPrincipal() principal: Principal): Promise<HostDetailView> {
    return this.fleet.remove(principal, hostId);
  }

  @Post('hosts/:hostId/health')
  @HttpCode(200)
  @Operation('Report a host (or one of its GPUs) unhealthy, or healthy again (operators only)', {
    returns: 'HostDetailView',
    description:
      'Unhealthy (code `OPERATOR`): no placements; its pods stop with statusReason `HOST_UNHEALTHY: ...` and its ' +
      "serverless workers are replaced, their jobs requeued. Healthy clears the operator's report.",
    errors: { 409: INVALID_STATE },
  })
  health(
    @Param('hostId') hostId: string,
    @Body() dto: HostHealthInput,
    @CurrentPrincipal() principal: Principal,
  ): Promise<HostDetailView> {
    return this.fleet.reportHealth(principal, hostId, dto);
  }

  @Post('hosts/:hostId/gpu-faults')
  @HttpCode(200)
  @Operation('Make a GPU of a simulated or local host fail, with an Xid or ECC error (operators only)', {
    returns: 'HostDetailView',
    description:
      'For tests and demos: the runtime driver reports the fault, and the host goes UNHEALTHY as a real one ' +
      'would.',
    errors: { 501: 'the runtime driver is neither the simulated nor the local one' },
  })
  gpuFault(
    @Param('hostId') hostId: string,
    @Body() dto: GpuFaultInput,
    @CurrentPrincipal() principal: Principal,
  ): Promise<HostDetailView> {
    return this.fleet.injectGpuFault(principal, hostId, dto);
  }

  @Get('capacity')
  @Operation(
    'GPUs (and CPU pod slots) per data center and type: total, allocated, free, unavailable (operators only)',
    {
      returns: 'FleetCapacityView',
      description:
        'total = allocated + free + unavailable: `free` is what READY hosts could still place, `unavailable` the ' +
        'free capacity of hosts cordoned, draining or unhealthy. GONE hosts count nowhere.',
    },
  )
  capacity(@CurrentPrincipal() principal: Principal): Promise<FleetCapacityView> {
    return this.fleet.capacity(principal);
  }
}
