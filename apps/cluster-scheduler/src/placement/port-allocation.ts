/** Another transaction took some of the capacity this one planned on: plan again on a fresh snapshot. */
export class LostRaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LostRaceError';
  }
}

/** A host as a commit addresses it: where its pods are reached and the range of its public ports. */
export interface HostAddress {
  id: string;
  publicIp: string;
  portStart: number;
  portEnd: number;
}

/** One pod's share of a plan: the host it takes its share of. */
export interface PodClaim {
  podId: string;
  hostId: string;
}

/**
 * Each claim's public ports, pod after pod in claim order: for every port spec the lowest port of its host's range
 * that no pod maps (`used`, what the locked hosts map already) and no earlier claim of this commit took. Throws
 * LostRaceError when a host's range runs out. A pure function over what the commit read: the same claims on the
 * same ledger get the same ports, live and on a rebuild.
 */
export function allocatePorts(
  ports: readonly string[],
  claims: readonly PodClaim[],
  hosts: ReadonlyMap<string, HostAddress>,
  used: readonly { hostId: string; port: number }[],
): Map<string, Record<string, number>> {
  const result = new Map<string, Record<string, number>>();
  if (!ports.length) return result;
  const taken = new Map<string, Set<number>>();
  for (const row of used) {
    const set = taken.get(row.hostId) ?? new Set<number>();
    set.add(row.port);
    taken.set(row.hostId, set);
  }
  const cursor = new Map<string, number>();
  for (const claim of claims) {
    const host = hosts.get(claim.hostId)!;
    const set = taken.get(host.id) ?? new Set<number>();
    taken.set(host.id, set);
    let next = cursor.get(host.id) ?? host.portStart;
    const mapping: Record<string, number> = {};
    for (const spec of ports) {
      while (set.has(next)) next++;
      if (next > host.portEnd) throw new LostRaceError(`host ${host.id} has run out of public ports`);
      mapping[spec] = next;
      set.add(next);
    }
    cursor.set(host.id, next);
    result.set(claim.podId, mapping);
  }
  return result;
}

/** Constraints a concurrent commit can make us lose: then we plan again on a fresh snapshot. */
const RETRYABLE_CONSTRAINTS = new Set([
  'host_ports_pkey',
  'clusters_vxlan_live_uq',
  'clusters_cidr_live_excl',
]);

/** Whether `error` says a concurrent transaction took what the plan counted on (then placement plans again). */
export function isLostRace(error: unknown): boolean {
  if (error instanceof LostRaceError) return true;
  const e = error as {
    code?: string;
    constraint?: string;
    driverError?: { code?: string; constraint?: string };
  };
  const code = e?.driverError?.code ?? e?.code;
  const constraint = e?.driverError?.constraint ?? e?.constraint;
  if (code === '40P01' || code === '40001') return true;
  return (
    (code === '23505' || code === '23P01') &&
    constraint !== undefined &&
    RETRYABLE_CONSTRAINTS.has(constraint)
  );
}
