import {
  DomainError,
  ErrorCode,
  type FleetActor,
  type HealthCode,
  type HealthSource,
  type HostState,
  type SchedulingState,
} from '@app/contracts';

/**
 * The fleet's rules as pure functions over a host's state (docs/adr/0039-live-fleet.md): which state it shows,
 * which transitions each command may make and who may undo whose. Each rule either throws the refusal (a guard
 * clause) or returns the host's next state; `null` is a no-op. No I/O and no clock: the handlers pass the command's
 * time in.
 */

export type SchedulingBy = FleetActor | 'file';

/** What the rules read of a host. */
export interface HostStatus {
  id: string;
  schedulingState: SchedulingState;
  schedulingBy: SchedulingBy;
  schedulingReason: string | null;
  healthy: boolean;
  healthCode: HealthCode | null;
  healthReason: string | null;
  healthSource: HealthSource | null;
}

/** A scheduling change: the new state, by whom, why, and the drain's deadline (null unless DRAINING). */
export interface SchedulingChange {
  state: SchedulingState;
  by: SchedulingBy;
  reason: string | null;
  drainDeadline: Date | null;
}

export interface HealthChange {
  healthy: boolean;
  code: HealthCode | null;
  reason: string | null;
  source: HealthSource | null;
  gpuIndex: number | null;
}

/** The state a host shows: the first that holds of GONE, UNHEALTHY, DRAINING, CORDONED, READY. */
export function shownState(host: Pick<HostStatus, 'schedulingState' | 'healthy'>): HostState {
  if (host.schedulingState === 'GONE') return 'GONE';
  if (!host.healthy) return 'UNHEALTHY';
  return host.schedulingState;
}

/** Only a READY host takes new placements (placement's SQL says the same: schedulableSql). */
export function isSchedulable(host: Pick<HostStatus, 'schedulingState' | 'healthy'>): boolean {
  return shownState(host) === 'READY';
}

/**
 * Whether a pod may run again on the host it still holds (a resume before its stop's release was applied): on a
 * READY or CORDONED host (a cordon only stops new placements, and keeping what the pod holds is not one); not on
 * one draining (its pods are being stopped), unhealthy or gone.
 */
export function mayKeepReservation(host: Pick<HostStatus, 'schedulingState' | 'healthy'>): boolean {
  const state = shownState(host);
  return state === 'READY' || state === 'CORDONED';
}

/** The sentence of the shown state: the health report's while UNHEALTHY, else the cordon's, drain's or removal's. */
export function stateReason(host: HostStatus): string | null {
  const state = shownState(host);
  if (state === 'UNHEALTHY') return host.healthReason ?? host.healthCode;
  return state === 'READY' ? null : host.schedulingReason;
}

/** Why a host takes no new pods, for a refusal: `host h-1 is DRAINING (by operator: kernel upgrade)`. */
export function unschedulableSentence(host: HostStatus): string {
  const state = shownState(host);
  const by = state === 'UNHEALTHY' ? (host.healthSource ?? 'runtime') : host.schedulingBy;
  const reason = stateReason(host);
  const code = state === 'UNHEALTHY' && host.healthCode ? `${host.healthCode}, ` : '';
  return `host ${host.id} is ${state} (${code}by ${by}${reason ? `: ${reason}` : ''}) and takes no new pods`;
}

function gone(host: HostStatus, action: string): DomainError {
  return new DomainError(
    ErrorCode.InvalidState,
    `host ${host.id} is GONE: it cannot be ${action}; register it again first`,
  );
}

/**
 * Whose hold stays: an operator's cordon or drain is never taken over (nor lifted) by the node watch, which
 * otherwise follows the node.
 */
function holder(host: HostStatus, by: FleetActor): SchedulingBy {
  return host.schedulingBy === 'operator' && by === 'kubernetes' && host.schedulingState !== 'READY'
    ? 'operator'
    : by;
}

/** `fleet.cmd.cordon`: READY → CORDONED; an operator's cordon of a DRAINING host stops the drain. */
export function cordon(host: HostStatus, by: FleetActor, reason: string | null): SchedulingChange | null {
  if (host.schedulingState === 'GONE') throw gone(host, 'cordoned');
  if (host.schedulingState === 'CORDONED') {
    // An operator takes over Kubernetes' cordon (so the node watch no longer lifts it); anything else is a no-op.
    if (by === 'operator' && host.schedulingBy !== 'operator') {
      return { state: 'CORDONED', by, reason: reason ?? host.schedulingReason, drainDeadline: null };
    }
    return null;
  }
  // The node watch reports a cordoned node while the host drains (kubectl drain cordons it): the drain goes on.
  if (host.schedulingState === 'DRAINING' && by === 'kubernetes') return null;
  return { state: 'CORDONED', by: holder(host, by), reason, drainDeadline: null };
}

/**
 * `fleet.cmd.uncordon`: CORDONED or DRAINING → READY (a drain is called off). Kubernetes lifts only what it set:
 * the node watch seeing a schedulable node never lifts an operator's cordon or drain (a no-op).
 */
export function uncordon(host: HostStatus, by: FleetActor): SchedulingChange | null {
  if (host.schedulingState === 'GONE') throw gone(host, 'uncordoned');
  if (host.schedulingState === 'READY') return null;
  if (by === 'kubernetes' && host.schedulingBy === 'operator') return null;
  return { state: 'READY', by, reason: null, drainDeadline: null };
}

/** `fleet.cmd.drain`: READY or CORDONED → DRAINING until `deadline`; draining again changes nothing. */
export function drain(
  host: HostStatus,
  by: FleetActor,
  reason: string | null,
  deadline: Date,
): SchedulingChange | null {
  if (host.schedulingState === 'GONE') throw gone(host, 'drained');
  if (host.schedulingState === 'DRAINING') return null;
  return { state: 'DRAINING', by: holder(host, by), reason, drainDeadline: deadline };
}

/**
 * `fleet.cmd.remove`: the host goes GONE. An operator removes only a host no pod holds anything on (drain it
 * first); the node watch removes a deleted node whatever it held (its pods are lost).
 */
export function remove(host: HostStatus, by: FleetActor, pods: number): SchedulingChange | null {
  if (host.schedulingState === 'GONE') return null;
  if (by === 'operator' && pods > 0) {
    throw new DomainError(
      ErrorCode.InvalidState,
      `host ${host.id} still holds ${pods} pod${pods === 1 ? '' : 's'}: drain it and wait until they are gone ` +
        '(its view says drained: true) before removing it',
    );
  }
  return {
    state: 'GONE',
    by,
    reason: by === 'kubernetes' ? 'the Kubernetes node was deleted' : 'removed by an operator',
    drainDeadline: null,
  };
}

/** `fleet.cmd.register` of a host that exists: a GONE host comes back READY; any other keeps its state. */
export function reRegister(host: HostStatus, by: FleetActor): SchedulingChange | null {
  if (host.schedulingState !== 'GONE') return null;
  return { state: 'READY', by, reason: null, drainDeadline: null };
}

/**
 * `fleet.cmd.report-health`. Unhealthy needs a code. A healthy report clears only what its own source reported,
 * or any report when an operator makes it: the runtime seeing a GPU pass its checks does not lift an operator's
 * quarantine. A report that changes nothing is a no-op.
 */
export function reportHealth(
  host: HostStatus & { healthGpuIndex: number | null; gpuCount: number },
  report: { healthy: boolean; source: HealthSource; code?: HealthCode; reason?: string; gpuIndex?: number },
): HealthChange | null {
  if (report.gpuIndex !== undefined && report.gpuIndex >= host.gpuCount) {
    throw new DomainError(
      ErrorCode.BadRequest,
      `host ${host.id} has ${host.gpuCount === 1 ? 'one GPU' : `${host.gpuCount} GPUs`}: ` +
        `gpuIndex ${report.gpuIndex} is not one of them`,
    );
  }
  if (!report.healthy) {
    if (!report.code) {
      throw new DomainError(
        ErrorCode.BadRequest,
        `an unhealthy report of host ${host.id} needs a code (one of XID, ECC, GPU_UNHEALTHY, NODE_NOT_READY, ` +
          'START_FAILURES, OPERATOR)',
      );
    }
    // The runtime's or start failures' report does not replace an operator's quarantine (nor would it lift it).
    if (!host.healthy && host.healthSource === 'operator' && report.source !== 'operator') return null;
    const next: HealthChange = {
      healthy: false,
      code: report.code,
      reason: report.reason ?? null,
      source: report.source,
      gpuIndex: report.gpuIndex ?? null,
    };
    const same =
      !host.healthy &&
      host.healthCode === next.code &&
      host.healthReason === next.reason &&
      host.healthSource === next.source &&
      host.healthGpuIndex === next.gpuIndex;
    return same ? null : next;
  }
  if (host.healthy) return null;
  if (report.source !== 'operator' && report.source !== host.healthSource) return null;
  return { healthy: true, code: null, reason: null, source: report.source, gpuIndex: null };
}
