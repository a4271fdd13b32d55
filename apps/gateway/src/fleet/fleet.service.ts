import { Injectable } from '@nestjs/common';
import {
  Subjects,
  type CordonHostInput,
  type DrainHostInput,
  type FleetCapacityView,
  type GpuFaultInput,
  type HostDetailView,
  type HostHealthInput,
  type HostListView,
  type ListHostsQuery,
  type RegisterHostInput,
} from '@app/contracts';
import { CommandBus, QueryBus } from '@app/messaging';
import type { Principal } from '../accounts/principal.js';
import { actorOf } from '../auth/auth.decorators.js';

/**
 * The operators' fleet routes (docs/api.md, "Fleet"; docs/adr/0039-live-fleet.md): the cluster scheduler owns the
 * hosts (`fleet.cmd.*`, `fleet.qry.*`); the gateway only names the operator who acts (the routes'
 * `@Auth({operator: true})`). A command answers what it decided, so each change reads the host's view after it:
 * the command is recorded by then, and the view is what the operator sees next anyway.
 */
@Injectable()
export class FleetService {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  list(principal: Principal, query: ListHostsQuery): Promise<HostListView> {
    return this.queries.query(Subjects.fleet.listHosts, { ...query }, actorOf(principal));
  }

  host(principal: Principal, hostId: string): Promise<HostDetailView> {
    return this.queries.query(Subjects.fleet.getHost, { hostId }, actorOf(principal));
  }

  capacity(principal: Principal): Promise<FleetCapacityView> {
    return this.queries.query(Subjects.fleet.capacity, {}, actorOf(principal));
  }

  /** Registered through the API: source `api` (the node watch registers `kubernetes`, the file seeds `file`). */
  async register(principal: Principal, input: RegisterHostInput): Promise<HostDetailView> {
    const { hostId } = await this.commands.execute(
      Subjects.fleet.register,
      { ...input, source: 'api' },
      actorOf(principal),
    );
    return this.host(principal, hostId);
  }

  async cordon(principal: Principal, hostId: string, input: CordonHostInput): Promise<HostDetailView> {
    await this.commands.execute(
      Subjects.fleet.cordon,
      { hostId, by: 'operator', ...(input.reason !== undefined ? { reason: input.reason } : {}) },
      actorOf(principal),
    );
    return this.host(principal, hostId);
  }

  async uncordon(principal: Principal, hostId: string): Promise<HostDetailView> {
    await this.commands.execute(Subjects.fleet.uncordon, { hostId, by: 'operator' }, actorOf(principal));
    return this.host(principal, hostId);
  }

  async drain(principal: Principal, hostId: string, input: DrainHostInput): Promise<HostDetailView> {
    await this.commands.execute(
      Subjects.fleet.drain,
      {
        hostId,
        by: 'operator',
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        ...(input.deadlineSeconds !== undefined ? { deadlineSeconds: input.deadlineSeconds } : {}),
      },
      actorOf(principal),
    );
    return this.host(principal, hostId);
  }

  /** The host stays, GONE: its view says so (and a later register brings it back). */
  async remove(principal: Principal, hostId: string): Promise<HostDetailView> {
    await this.commands.execute(Subjects.fleet.remove, { hostId, by: 'operator' }, actorOf(principal));
    return this.host(principal, hostId);
  }

  async reportHealth(principal: Principal, hostId: string, input: HostHealthInput): Promise<HostDetailView> {
    await this.commands.execute(
      Subjects.fleet.reportHealth,
      {
        hostId,
        healthy: input.healthy,
        source: 'operator',
        ...(input.healthy ? {} : { code: 'OPERATOR' as const }),
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        ...(input.gpuIndex !== undefined ? { gpuIndex: input.gpuIndex } : {}),
      },
      actorOf(principal),
    );
    return this.host(principal, hostId);
  }

  /** Pod-lifecycle's driver fails the GPU and reports it to the scheduler before it answers. */
  async injectGpuFault(principal: Principal, hostId: string, input: GpuFaultInput): Promise<HostDetailView> {
    await this.commands.execute(
      Subjects.pod.injectGpuFault,
      {
        hostId,
        kind: input.kind,
        ...(input.gpuIndex !== undefined ? { gpuIndex: input.gpuIndex } : {}),
        ...(input.xid !== undefined ? { xid: input.xid } : {}),
      },
      actorOf(principal),
    );
    return this.host(principal, hostId);
  }
}
