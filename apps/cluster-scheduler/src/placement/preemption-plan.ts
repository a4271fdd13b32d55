/**
 * Which holders to preempt for a placement that does not fit, as a pure function over a snapshot (as Kueue's
 * preemptor and kube-scheduler's post-filter do it): the candidates the rules allow, taken in order until the
 * request fits both its quota and the hosts, then every one not needed given back. No I/O and no clock.
 */
import type { PreemptionReason } from '@app/contracts';
import { admitIn, withinShare, without, type Ledger, type Usage } from '../quotas/quota-ledger.js';
import { place, type FleetSnapshot, type PlacementPlugins, type PlacementRequest } from './placement.js';

/** One reservation of the GPU type being placed, as preemption sees it. */
export interface Holder {
  podId: string;
  ownerId: string;
  clusterId: string | null;
  hostId: string;
  dataCenterId: string;
  gpus: number;
  ports: number;
  priority: number;
  interruptible: boolean;
  since: Date;
  /** The owner's cohort (null: none, or no quota of its own). */
  cohort: string | null;
}

/** What preemption takes as a unit: a standalone pod (a worker is one) or a whole cluster. */
export interface Workload {
  id: string;
  ownerId: string;
  clusterId: string | null;
  holders: Holder[];
  gpus: number;
  priority: number;
  interruptible: boolean;
  since: Date;
}

export interface Victim extends Workload {
  reason: PreemptionReason;
}

export interface PreemptionAsk {
  accountId: string;
  /** The account's cohort (null: none); its peers are the ledger's. */
  cohort: string | null;
  priority: number;
  interruptible: boolean;
  gpus: number;
}

export interface PreemptionInput {
  ask: PreemptionAsk;
  ledger: Ledger;
  holders: readonly Holder[];
  /** Every host of the type the request may use, full ones included. */
  snapshot: FleetSnapshot;
  request: PlacementRequest;
  plugins: PlacementPlugins;
  /** The pace limit's budget left per victim cohort key (`paceKey`). */
  paceLeft: (paceKey: string) => number;
}

/** What the pace limit counts a victim by: its owner's cohort, or the owner alone when it has none. */
export function paceKey(w: Pick<Holder, 'ownerId' | 'cohort'>): string {
  return w.cohort ?? `account:${w.ownerId}`;
}

/** `paced`: it would have fit but for the pace limit. */
export type PreemptionPlan = { ok: true; victims: Victim[] } | { ok: false; why: string; paced: boolean };

export function workloadsOf(holders: readonly Holder[]): Workload[] {
  const byId = new Map<string, Workload>();
  for (const h of holders) {
    const id = h.clusterId ?? h.podId;
    const w = byId.get(id);
    if (w) {
      w.holders.push(h);
      w.gpus += h.gpus;
      continue;
    }
    byId.set(id, {
      id,
      ownerId: h.ownerId,
      clusterId: h.clusterId,
      holders: [h],
      gpus: h.gpus,
      priority: h.priority,
      interruptible: h.interruptible,
      since: h.since,
    });
  }
  return [...byId.values()];
}

/**
 * The workloads of each cohort peer that run on borrowed GPUs: beyond the peer's share of a limit that counts
 * them, counted from its oldest workload (so the most recent ones are the borrowers).
 */
export function borrowingWorkloads(ledger: Ledger, workloads: readonly Workload[]): Set<string> {
  const borrowing = new Set<string>();
  for (const peer of ledger.peers) {
    for (const limit of peer.limits) {
      if (limit.gpuTypeId !== ledger.gpuTypeId) continue;
      const theirs = workloads
        .filter((w) => w.ownerId === peer.accountId)
        .filter((w) => limit.dataCenterId === null || w.holders[0].dataCenterId === limit.dataCenterId)
        .sort((a, b) => a.since.getTime() - b.since.getTime() || (a.id < b.id ? -1 : 1));
      let held = 0;
      for (const w of theirs) {
        held += w.gpus;
        if (held > limit.gpus) borrowing.add(w.id);
      }
    }
  }
  return borrowing;
}

/** Why the rules let `ask` preempt `w`, or null: they do not. */
export function preemptionReason(
  input: Pick<PreemptionInput, 'ask' | 'ledger'>,
  w: Workload,
  borrowing: ReadonlySet<string>,
): PreemptionReason | null {
  const { ask, ledger } = input;
  if (w.ownerId === ask.accountId) {
    if (w.priority < ask.priority) return 'priority';
    if (w.interruptible && !ask.interruptible) return 'interruptible';
    return null;
  }
  const peer = ledger.peers.some((p) => p.accountId === w.ownerId);
  if (peer && borrowing.has(w.id) && withinShare(ledger, ask.gpus, w.holders[0].dataCenterId)) {
    return 'reclaim';
  }
  if (w.interruptible && (!ask.interruptible || w.priority < ask.priority)) return 'interruptible';
  return null;
}

/** Lowest priority first, interruptible before the rest, the most recently started first, then the smallest. */
function preemptionOrder(a: Workload, b: Workload): number {
  return (
    a.priority - b.priority ||
    Number(b.interruptible) - Number(a.interruptible) ||
    b.since.getTime() - a.since.getTime() ||
    a.gpus - b.gpus ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Whether the request fits once `victims` are gone: some data center admits it by quota and has the hosts. */
export function fitsWithout(input: PreemptionInput, victims: readonly Workload[]): boolean {
  const freed: Usage[] = victims.flatMap((v) =>
    v.holders.map((h) => ({ ownerId: h.ownerId, dataCenterId: h.dataCenterId, gpus: h.gpus })),
  );
  const ledger = without(input.ledger, freed);
  const back = new Map<string, { gpus: number; ports: number }>();
  for (const h of victims.flatMap((v) => v.holders)) {
    const b = back.get(h.hostId) ?? { gpus: 0, ports: 0 };
    back.set(h.hostId, { gpus: b.gpus + h.gpus, ports: b.ports + h.ports });
  }
  const hosts = input.snapshot.hosts.map((host) => {
    const b = back.get(host.id);
    return b ? { ...host, freeGpus: host.freeGpus + b.gpus, freePorts: host.freePorts + b.ports } : host;
  });
  const quota = {
    name: 'quota',
    accepts: (dc: { id: string }) => admitIn(ledger, input.ask.gpus, dc.id).ok,
  };
  const plugins = { ...input.plugins, dataCenterFilters: [...input.plugins.dataCenterFilters, quota] };
  return place({ ...input.snapshot, hosts }, input.request, plugins).ok;
}

/**
 * The fewest, lowest-priority, most recently started workloads whose GPUs let the request fit: candidates in
 * `preemptionOrder` are added until it fits, then each one but the last is tried without, newest addition first,
 * and given back when the request still fits. The victims left must be within each cohort's pace budget.
 */
export function planPreemption(input: PreemptionInput): PreemptionPlan {
  const workloads = workloadsOf(input.holders);
  const borrowing = borrowingWorkloads(input.ledger, workloads);
  const candidates: Victim[] = [];
  for (const w of workloads.sort(preemptionOrder)) {
    const reason = preemptionReason(input, w, borrowing);
    if (reason) candidates.push({ ...w, reason });
  }
  if (!candidates.length) {
    return { ok: false, why: 'nothing it may preempt holds GPUs of this type', paced: false };
  }
  const chosen: Victim[] = [];
  for (const c of candidates) {
    chosen.push(c);
    if (!fitsWithout(input, chosen)) continue;
    const victims = reprieve(input, chosen);
    const perKey = new Map<string, number>();
    for (const v of victims) perKey.set(paceKey(v.holders[0]), (perKey.get(paceKey(v.holders[0])) ?? 0) + 1);
    if ([...perKey].every(([key, n]) => n <= input.paceLeft(key))) return { ok: true, victims };
    return {
      ok: false,
      paced: true,
      why: 'the preemption pace limit is reached for the cohort that holds the GPUs; try again in a minute',
    };
  }
  return {
    ok: false,
    paced: false,
    why: 'preempting every workload it may preempt would not free enough GPUs',
  };
}

function reprieve(input: PreemptionInput, chosen: Victim[]): Victim[] {
  const victims = [...chosen];
  for (let i = victims.length - 2; i >= 0; i--) {
    const rest = victims.filter((_, j) => j !== i);
    if (fitsWithout(input, rest)) victims.splice(i, 1);
  }
  return victims;
}
