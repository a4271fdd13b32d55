/**
 * Placement as a pure function over a snapshot of the fleet: no I/O, no clock, deterministic (ties break by id),
 * so the same snapshot and request always give the same plan and a replay rebuilds the same rows. Filters and
 * scores are small named plugins; the commit (placement.repository.ts) then takes the capacity in one
 * transaction that the database guards against double booking.
 */

/** One host as placement sees it: what is free now. */
export interface HostCapacity {
  id: string;
  dataCenterId: string;
  gpuTypeId: string | null;
  gpuCount: number;
  freeGpus: number;
  cpuTypeId: string | null;
  cpuSlots: number;
  freeCpuSlots: number;
  freePorts: number;
}

export interface DataCenterInfo {
  id: string;
  region: string;
}

export interface FleetSnapshot {
  /** Every data center of the catalog (placement reports which ones it considered). */
  dataCenters: DataCenterInfo[];
  /** Candidate hosts; the loader may already have left out hosts that cannot fit one pod. */
  hosts: HostCapacity[];
}

/** `podCount` identical pods, all in one data center. */
export interface PlacementRequest {
  /** Null for CPU pods. */
  gpuTypeId: string | null;
  /** GPUs per pod; 0 for a CPU pod (which takes one CPU slot). */
  gpusPerPod: number;
  /** CPU pods: the CPU type wanted; null for any. */
  cpuTypeId: string | null;
  podCount: number;
  /** Public ports each pod maps on its host. */
  portsPerPod: number;
  /** Preferred data centers in order; empty for any. */
  dataCenterIds: string[];
  /** Allowed region codes; empty for any. */
  regions: string[];
  /** The data center of the network volume to mount, which fixes the pods' data center. */
  volumeDataCenterId: string | null;
  /** Only this host (resuming a stopped pod where its data is). */
  hostId: string | null;
}

export interface Assignment {
  rank: number;
  hostId: string;
}

export type PlacementResult =
  { ok: true; dataCenterId: string; assignments: Assignment[] } | { ok: false; considered: string[] };

export interface DataCenterFilter {
  readonly name: string;
  accepts(dataCenter: DataCenterInfo, request: PlacementRequest): boolean;
}

export interface HostFilter {
  readonly name: string;
  accepts(host: HostCapacity, request: PlacementRequest): boolean;
}

/** A feasible data center with its usable hosts and the assignment placement would make there. */
export interface DataCenterCandidate {
  dataCenter: DataCenterInfo;
  /** Index in the request's preference list; -1 when not listed (or no list). */
  preferenceIndex: number;
  hosts: HostCapacity[];
  assignments: Assignment[];
}

export interface DataCenterScorer {
  readonly name: string;
  /** Higher is better; scores of every scorer are added. */
  score(candidate: DataCenterCandidate, request: PlacementRequest): number;
}

export interface HostScorer {
  readonly name: string;
  /** Higher is filled first; scores of every scorer are added. */
  score(host: HostCapacity, request: PlacementRequest): number;
}

export interface PlacementPlugins {
  dataCenterFilters: readonly DataCenterFilter[];
  hostFilters: readonly HostFilter[];
  dataCenterScorers: readonly DataCenterScorer[];
  hostScorers: readonly HostScorer[];
}

/** How many of the request's pods fit on the host right now. */
export function podsFitting(host: HostCapacity, request: PlacementRequest): number {
  const byCompute =
    request.gpuTypeId === null
      ? request.gpusPerPod === 0
        ? host.freeCpuSlots
        : 0
      : Math.floor(host.freeGpus / Math.max(1, request.gpusPerPod));
  const byPorts =
    request.portsPerPod > 0 ? Math.floor(host.freePorts / request.portsPerPod) : Number.MAX_SAFE_INTEGER;
  return Math.max(0, Math.min(byCompute, byPorts));
}

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The data centers a request may use, in the order it prefers them (catalog order by id when it has no list). */
export function consideredDataCenters(
  dataCenters: readonly DataCenterInfo[],
  request: PlacementRequest,
  filters: readonly DataCenterFilter[],
): DataCenterInfo[] {
  const accepted = dataCenters.filter((dc) => filters.every((f) => f.accepts(dc, request)));
  if (!request.dataCenterIds.length) return [...accepted].sort(byId);
  const byKey = new Map(accepted.map((dc) => [dc.id, dc]));
  return request.dataCenterIds.flatMap((id) => {
    const dc = byKey.get(id);
    return dc ? [dc] : [];
  });
}

/** Fills hosts in score order (ties by id), as many pods per host as fit, ranks in that order. */
export function assign(
  hosts: readonly HostCapacity[],
  request: PlacementRequest,
  scorers: readonly HostScorer[],
): Assignment[] | null {
  const scored = hosts
    .map((host) => ({ host, score: scorers.reduce((sum, s) => sum + s.score(host, request), 0) }))
    .sort((a, b) => b.score - a.score || byId(a.host, b.host));
  const assignments: Assignment[] = [];
  for (const { host } of scored) {
    const take = Math.min(podsFitting(host, request), request.podCount - assignments.length);
    for (let i = 0; i < take; i++) assignments.push({ rank: assignments.length, hostId: host.id });
    if (assignments.length === request.podCount) return assignments;
  }
  return null;
}

/** Places every pod of the request in one data center, or says which data centers it considered. */
export function place(
  snapshot: FleetSnapshot,
  request: PlacementRequest,
  plugins: PlacementPlugins,
): PlacementResult {
  const considered = consideredDataCenters(snapshot.dataCenters, request, plugins.dataCenterFilters);
  const hostsByDc = new Map<string, HostCapacity[]>();
  for (const host of snapshot.hosts) {
    if (!plugins.hostFilters.every((f) => f.accepts(host, request))) continue;
    const list = hostsByDc.get(host.dataCenterId);
    if (list) list.push(host);
    else hostsByDc.set(host.dataCenterId, [host]);
  }
  const candidates: DataCenterCandidate[] = [];
  for (const dataCenter of considered) {
    const hosts = hostsByDc.get(dataCenter.id) ?? [];
    const assignments = assign(hosts, request, plugins.hostScorers);
    if (!assignments) continue;
    candidates.push({
      dataCenter,
      preferenceIndex: request.dataCenterIds.indexOf(dataCenter.id),
      hosts,
      assignments,
    });
  }
  if (!candidates.length) return { ok: false, considered: considered.map((dc) => dc.id) };
  const best = candidates
    .map((candidate) => ({
      candidate,
      score: plugins.dataCenterScorers.reduce((sum, s) => sum + s.score(candidate, request), 0),
    }))
    .sort((a, b) => b.score - a.score || byId(a.candidate.dataCenter, b.candidate.dataCenter))[0].candidate;
  return { ok: true, dataCenterId: best.dataCenter.id, assignments: best.assignments };
}
