import { DomainError, ErrorCode } from '@app/contracts';

/** The default public port range of a registered host that names none. */
export const DEFAULT_PORT_RANGE: readonly [number, number] = [20000, 20999];

/** What a host offers, as registered. */
export interface HostShape {
  dataCenterId: string;
  gpuTypeId: string | null;
  gpuCount: number;
  cpuTypeId: string | null;
  cpuSlots: number;
  publicIp: string;
  portStart: number;
  portEnd: number;
}

/** A host's ledger: what it offers and what is free of it. */
export interface HostLedger extends HostShape {
  freeGpus: number;
  freeCpuSlots: number;
  freePorts: number;
}

/** What the pods on a host hold: how many pods, and the public ports they map. */
export interface HostHoldings {
  pods: number;
  ports: readonly number[];
}

/** A register command's shape checked on its own: a CPU host has no GPUs, a port range runs upwards. */
export function checkShape(id: string, shape: HostShape): void {
  if (shape.gpuTypeId === null && shape.gpuCount > 0) {
    throw new DomainError(
      ErrorCode.BadRequest,
      `host ${id}: gpuTypeId must be set when gpuCount is greater than 0`,
    );
  }
  if (shape.portStart > shape.portEnd) {
    throw new DomainError(
      ErrorCode.BadRequest,
      `host ${id}: portRange [${shape.portStart}, ${shape.portEnd}] must run from its first port to its last`,
    );
  }
}

/**
 * A host registered again with a new shape: its free counters keep what its pods hold (free = new capacity −
 * held). Refused (INVALID_STATE) when it would offer less than its pods hold or drop a port a pod maps, and
 * (CONFLICT) when it would move a host that holds pods to another data center or GPU type, since their
 * reservations name both.
 */
export function resized(id: string, current: HostLedger, next: HostShape, held: HostHoldings): HostLedger {
  if (held.pods > 0 && next.dataCenterId !== current.dataCenterId) {
    throw new DomainError(
      ErrorCode.Conflict,
      `host ${id} holds ${held.pods} pods in ${current.dataCenterId}: it cannot move to ${next.dataCenterId} ` +
        'until they are gone',
    );
  }
  const heldGpus = current.gpuCount - current.freeGpus;
  if (heldGpus > 0 && next.gpuTypeId !== current.gpuTypeId) {
    throw new DomainError(
      ErrorCode.Conflict,
      `host ${id} holds ${heldGpus} × ${current.gpuTypeId} for pods: its GPU type cannot change to ` +
        `${next.gpuTypeId ?? 'none'} until they are gone`,
    );
  }
  const heldSlots = current.cpuSlots - current.freeCpuSlots;
  const short: string[] = [];
  if (next.gpuCount < heldGpus) short.push(`${next.gpuCount} GPUs where its pods hold ${heldGpus}`);
  if (next.cpuSlots < heldSlots) short.push(`${next.cpuSlots} CPU slots where its pods hold ${heldSlots}`);
  const outside = held.ports.filter((p) => p < next.portStart || p > next.portEnd);
  if (outside.length) {
    short.push(
      `ports ${next.portStart}–${next.portEnd}, leaving out ${outside.length} its pods map (${outside.slice(0, 5).join(', ')})`,
    );
  }
  if (short.length) {
    throw new DomainError(
      ErrorCode.InvalidState,
      `host ${id} would offer ${short.join('; ')}: stop those pods first, or register it with more`,
    );
  }
  return {
    ...next,
    freeGpus: next.gpuCount - heldGpus,
    freeCpuSlots: next.cpuSlots - heldSlots,
    freePorts: next.portEnd - next.portStart + 1 - held.ports.length,
  };
}

/** Whether registering `next` changes anything of the host's shape. */
export function sameShape(current: HostShape, next: HostShape): boolean {
  return (Object.keys(next) as (keyof HostShape)[]).every((key) => current[key] === next[key]);
}
