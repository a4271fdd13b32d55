import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type RegisterHostCommand,
  type RegisterHostResult,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import type { EntityManager } from 'typeorm';
import { CatalogRepository } from '../../catalog/catalog.repository.js';
import { HostEntity } from '../../catalog/host.entity.js';
import { HostChanges } from '../host-changes.js';
import { DEFAULT_PORT_RANGE, checkShape, resized, sameShape, type HostShape } from '../host-capacity.js';
import { reRegister, shownState } from '../host-rules.js';
import { HostsRepository } from '../hosts.repository.js';

function unknown(what: string, id: string, route: string): DomainError {
  return new DomainError(ErrorCode.BadRequest, `${what} "${id}" is not in the catalog (${route})`);
}

/**
 * `fleet.cmd.register` (operators through `POST /v2/fleet/hosts`, and the Kubernetes node watch): adds a host,
 * READY, or updates an existing one's shape; its free counters keep what its pods hold (host-capacity.ts). A GONE
 * host registered again comes back READY. A host new to the fleet, or back from GONE, is reported as host-changed
 * from GONE.
 */
@Injectable()
export class RegisterHostHandler {
  constructor(
    private readonly changes: HostChanges,
    private readonly hosts: HostsRepository,
    private readonly catalog: CatalogRepository,
  ) {}

  @CommandHandler(Subjects.fleet.register)
  async handle(ctx: CommandContext<RegisterHostCommand>): Promise<RegisterHostResult> {
    const { payload, manager } = ctx;
    const [portStart, portEnd] = payload.portRange ?? DEFAULT_PORT_RANGE;
    const shape: HostShape = {
      dataCenterId: payload.dataCenterId,
      gpuTypeId: payload.gpuTypeId ?? null,
      gpuCount: payload.gpuCount,
      cpuTypeId: payload.cpuTypeId ?? null,
      cpuSlots: payload.cpuSlots ?? 0,
      publicIp: payload.publicIp,
      portStart,
      portEnd,
    };
    checkShape(payload.id, shape);
    await this.checkCatalog(shape, manager);
    const source = payload.source ?? 'api';
    const by = source === 'kubernetes' ? 'kubernetes' : 'operator';
    const host = await this.changes.lockIfAny(ctx, payload.id);
    if (!host) return this.create(ctx, shape, source, by);
    const previous = shownState(host);
    const back = reRegister(host, by);
    const shapeChanged = !sameShape(host, shape);
    if (!back && !shapeChanged && host.source === source) {
      return { hostId: host.id, created: false, state: previous };
    }
    if (shapeChanged) {
      Object.assign(host, resized(host.id, host, shape, await this.hosts.holdings(host.id, manager)));
    }
    host.source = source;
    if (back) {
      Object.assign(host, {
        schedulingState: back.state,
        schedulingBy: back.by,
        schedulingReason: back.reason,
        schedulingSince: ctx.now,
        drainDeadline: null,
        drainExpiredAt: null,
        registeredAt: ctx.now,
      });
    }
    const result = await this.changes.saved(ctx, host, previous, (m) => this.hosts.save(host, m));
    return { hostId: host.id, created: false, state: result.state };
  }

  private async create(
    ctx: CommandContext<RegisterHostCommand>,
    shape: HostShape,
    source: HostEntity['source'],
    by: 'operator' | 'kubernetes',
  ): Promise<RegisterHostResult> {
    const host = Object.assign(new HostEntity(), {
      id: ctx.payload.id,
      ...shape,
      freeGpus: shape.gpuCount,
      freeCpuSlots: shape.cpuSlots,
      freePorts: shape.portEnd - shape.portStart + 1,
      schedulingState: 'READY',
      schedulingBy: by,
      schedulingReason: null,
      schedulingSince: ctx.now,
      healthy: true,
      healthCode: null,
      healthReason: null,
      healthSource: null,
      healthGpuIndex: null,
      healthSince: null,
      drainDeadline: null,
      drainExpiredAt: null,
      source,
      registeredAt: ctx.now,
    } satisfies HostEntity);
    const result = await this.changes.saved(ctx, host, 'GONE', (m) => this.hosts.insert(host, m));
    return { hostId: host.id, created: true, state: result.state };
  }

  /** The data center, GPU type and CPU type must be the catalog's (the fleet file's): BAD_REQUEST naming them. */
  private async checkCatalog(shape: HostShape, manager: EntityManager): Promise<void> {
    if (!(await this.catalog.findDataCenter(shape.dataCenterId, manager))) {
      throw unknown('data center', shape.dataCenterId, 'GET /v2/catalog/datacenters');
    }
    if (shape.gpuTypeId !== null && !(await this.catalog.findGpuType(shape.gpuTypeId, manager))) {
      throw unknown('GPU type', shape.gpuTypeId, 'GET /v2/catalog/gpus');
    }
    if (shape.cpuTypeId !== null && !(await this.catalog.findCpuType(shape.cpuTypeId, manager))) {
      throw unknown('CPU type', shape.cpuTypeId, 'GET /v2/catalog/cpus');
    }
  }
}
