import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  type HostChangedEvent,
  type HostChangeResult,
  type HostState,
} from '@app/contracts';
import type { CommandContext } from '@app/messaging';
import type { HostEntity } from '../catalog/host.entity.js';
import { LedgerLock } from '../quotas/ledger-lock.js';
import { shownState, stateReason, type HealthChange, type SchedulingChange } from './host-rules.js';
import { HostsRepository } from './hosts.repository.js';

/**
 * What every fleet command does around its rule: takes the placement ledger's lock and then the host's row (the
 * order placements take them in), so a fleet change and the placements are applied one at a time, in the order a
 * rebuild replays them; writes the change; and, when the host's shown state changed, emits `fleet.evt.host-changed`
 * with the pods on it, in the same transaction.
 */
@Injectable()
export class HostChanges {
  constructor(
    private readonly hosts: HostsRepository,
    private readonly ledger: LedgerLock,
  ) {}

  /** The ledger's lock, then the host's row; NOT_FOUND naming it when it is not a host of the fleet. */
  async lock(ctx: CommandContext, hostId: string): Promise<HostEntity> {
    const host = await this.lockIfAny(ctx, hostId);
    if (!host) throw new DomainError(ErrorCode.NotFound, `host ${hostId} is not a host of the fleet`);
    return host;
  }

  /** The ledger's lock, then the host's row if there is one (a registration of a new host finds none). */
  async lockIfAny(ctx: CommandContext, hostId: string): Promise<HostEntity | null> {
    await this.ledger.lock(ctx.manager);
    return this.hosts.lock(hostId, ctx.manager);
  }

  /** Applies a scheduling change (null: none) to a locked host. */
  scheduling(
    ctx: CommandContext,
    host: HostEntity,
    change: SchedulingChange | null,
  ): Promise<HostChangeResult> {
    return this.apply(ctx, host, change, (h, c) => {
      h.schedulingState = c.state;
      h.schedulingBy = c.by;
      h.schedulingReason = c.reason;
      h.schedulingSince = ctx.now;
      h.drainDeadline = c.drainDeadline;
      h.drainExpiredAt = null;
    });
  }

  /** Applies a health change (null: none) to a locked host. */
  health(ctx: CommandContext, host: HostEntity, change: HealthChange | null): Promise<HostChangeResult> {
    return this.apply(ctx, host, change, (h, c) => {
      h.healthy = c.healthy;
      h.healthCode = c.code;
      h.healthReason = c.reason;
      h.healthSource = c.source;
      h.healthGpuIndex = c.gpuIndex;
      h.healthSince = ctx.now;
    });
  }

  /**
   * Saves the host as `write` left it and emits host-changed when its shown state differs from `previousState`
   * (register passes GONE for a host new to the fleet). Returns what the command decided.
   */
  async saved(
    ctx: CommandContext,
    host: HostEntity,
    previousState: HostState,
    write: (manager: CommandContext['manager']) => Promise<unknown>,
  ): Promise<HostChangeResult> {
    await write(ctx.manager);
    const state = shownState(host);
    if (state !== previousState) await this.emitChanged(ctx, host, previousState);
    return { hostId: host.id, state, changed: true };
  }

  private async apply<C>(
    ctx: CommandContext,
    host: HostEntity,
    change: C | null,
    write: (host: HostEntity, change: C) => void,
  ): Promise<HostChangeResult> {
    const previousState = shownState(host);
    if (!change) return { hostId: host.id, state: previousState, changed: false };
    write(host, change);
    return this.saved(ctx, host, previousState, (manager) => this.hosts.save(host, manager));
  }

  private async emitChanged(ctx: CommandContext, host: HostEntity, previousState: HostState): Promise<void> {
    const state = shownState(host);
    const event: HostChangedEvent = {
      hostId: host.id,
      dataCenterId: host.dataCenterId,
      state,
      previousState,
      reason: stateReason(host),
      healthCode: state === 'UNHEALTHY' ? host.healthCode : null,
      drainDeadline: host.schedulingState === 'DRAINING' ? (host.drainDeadline?.toISOString() ?? null) : null,
      pods: await this.hosts.podsOn(host.id, ctx.manager),
    };
    await ctx.emit(Subjects.fleet.hostChanged, event);
  }
}
