import { describe, expect, it } from '@jest/globals';
import { capacityFilter } from './plugins/capacity.plugin.js';
import {
  dataCenterAllowListFilter,
  dataCenterPreferenceScorer,
} from './plugins/data-center-preference.plugin.js';
import { DEFAULT_PLUGINS } from './plugins/index.js';
import { networkVolumeLocalityFilter } from './plugins/network-volume-locality.plugin.js';
import { packingDataCenterScorer, packingHostScorer } from './plugins/packing.plugin.js';
import { pinnedHostFilter } from './plugins/pinned-host.plugin.js';
import { regionFilter } from './plugins/region.plugin.js';
import {
  assign,
  consideredDataCenters,
  place,
  podsFitting,
  type DataCenterCandidate,
  type FleetSnapshot,
  type HostCapacity,
  type PlacementRequest,
} from './placement.js';

const A100 = 'NVIDIA A100 80GB PCIe';
const H100 = 'NVIDIA H100 80GB HBM3';

function host(
  id: string,
  dataCenterId: string,
  freeGpus: number,
  overrides: Partial<HostCapacity> = {},
): HostCapacity {
  return {
    id,
    dataCenterId,
    gpuTypeId: A100,
    gpuCount: 8,
    freeGpus,
    cpuTypeId: 'cpu3c',
    cpuSlots: 0,
    freeCpuSlots: 0,
    freePorts: 100,
    ...overrides,
  };
}

function request(overrides: Partial<PlacementRequest> = {}): PlacementRequest {
  return {
    gpuTypeId: A100,
    gpusPerPod: 2,
    cpuTypeId: null,
    podCount: 2,
    portsPerPod: 1,
    dataCenterIds: [],
    regions: [],
    volumeDataCenterId: null,
    hostId: null,
    ...overrides,
  };
}

const DATA_CENTERS = [
  { id: 'EU-RO-1', region: 'RO' },
  { id: 'US-TX-3', region: 'US' },
  { id: 'EU-CZ-1', region: 'CZ' },
];

describe('podsFitting', () => {
  it('counts whole pods by GPUs and by ports, whichever is scarcer', () => {
    expect(podsFitting(host('h', 'X', 8), request({ gpusPerPod: 2 }))).toBe(4);
    expect(podsFitting(host('h', 'X', 7), request({ gpusPerPod: 2 }))).toBe(3);
    expect(podsFitting(host('h', 'X', 8, { freePorts: 3 }), request({ gpusPerPod: 1, portsPerPod: 2 }))).toBe(
      1,
    );
    expect(podsFitting(host('h', 'X', 8, { freePorts: 0 }), request({ portsPerPod: 0 }))).toBe(4);
  });

  it('counts CPU slots for CPU pods', () => {
    const cpuHost = host('c', 'X', 0, { gpuTypeId: null, gpuCount: 0, cpuSlots: 16, freeCpuSlots: 5 });
    expect(podsFitting(cpuHost, request({ gpuTypeId: null, gpusPerPod: 0 }))).toBe(5);
  });
});

describe('plugins', () => {
  it('capacity: the GPU type and room for one pod', () => {
    expect(capacityFilter.accepts(host('h', 'X', 2), request({ gpusPerPod: 2 }))).toBe(true);
    expect(capacityFilter.accepts(host('h', 'X', 1), request({ gpusPerPod: 2 }))).toBe(false);
    expect(capacityFilter.accepts(host('h', 'X', 8, { gpuTypeId: H100 }), request())).toBe(false);
    expect(capacityFilter.accepts(host('h', 'X', 8, { freePorts: 0 }), request({ portsPerPod: 1 }))).toBe(
      false,
    );
    const cpuHost = host('c', 'X', 0, { gpuTypeId: null, gpuCount: 0, cpuSlots: 4, freeCpuSlots: 1 });
    expect(
      capacityFilter.accepts(cpuHost, request({ gpuTypeId: null, gpusPerPod: 0, cpuTypeId: 'cpu3c' })),
    ).toBe(true);
    expect(
      capacityFilter.accepts(cpuHost, request({ gpuTypeId: null, gpusPerPod: 0, cpuTypeId: 'cpu5c' })),
    ).toBe(false);
  });

  it('data-center preference: only listed ones, earlier ones first', () => {
    const listed = request({ dataCenterIds: ['US-TX-3', 'EU-RO-1'] });
    expect(dataCenterAllowListFilter.accepts(DATA_CENTERS[0], listed)).toBe(true);
    expect(dataCenterAllowListFilter.accepts(DATA_CENTERS[2], listed)).toBe(false);
    expect(dataCenterAllowListFilter.accepts(DATA_CENTERS[2], request())).toBe(true);
    const candidate = (preferenceIndex: number): DataCenterCandidate => ({
      dataCenter: DATA_CENTERS[0],
      preferenceIndex,
      hosts: [],
      assignments: [],
    });
    expect(dataCenterPreferenceScorer.score(candidate(0), listed)).toBeGreaterThan(
      dataCenterPreferenceScorer.score(candidate(1), listed),
    );
    expect(dataCenterPreferenceScorer.score(candidate(-1), request())).toBe(0);
  });

  it('region and network-volume locality narrow the data centers', () => {
    expect(regionFilter.accepts(DATA_CENTERS[1], request({ regions: ['US'] }))).toBe(true);
    expect(regionFilter.accepts(DATA_CENTERS[0], request({ regions: ['US'] }))).toBe(false);
    expect(
      networkVolumeLocalityFilter.accepts(DATA_CENTERS[0], request({ volumeDataCenterId: 'EU-RO-1' })),
    ).toBe(true);
    expect(
      networkVolumeLocalityFilter.accepts(DATA_CENTERS[1], request({ volumeDataCenterId: 'EU-RO-1' })),
    ).toBe(false);
    expect(networkVolumeLocalityFilter.accepts(DATA_CENTERS[1], request())).toBe(true);
  });

  it('pinned host: only that host', () => {
    expect(pinnedHostFilter.accepts(host('a', 'X', 8), request({ hostId: 'a' }))).toBe(true);
    expect(pinnedHostFilter.accepts(host('b', 'X', 8), request({ hostId: 'a' }))).toBe(false);
    expect(pinnedHostFilter.accepts(host('b', 'X', 8), request())).toBe(true);
  });

  it('packing: partly used hosts first, then the fullest', () => {
    const r = request();
    const whole = packingHostScorer.score(host('w', 'X', 8), r);
    const partly6 = packingHostScorer.score(host('p6', 'X', 6), r);
    const partly2 = packingHostScorer.score(host('p2', 'X', 2), r);
    expect(partly2).toBeGreaterThan(partly6);
    expect(partly6).toBeGreaterThan(whole);
    const hosts = [host('a', 'X', 8), host('b', 'X', 4)];
    const breaksWhole: DataCenterCandidate = {
      dataCenter: DATA_CENTERS[0],
      preferenceIndex: -1,
      hosts,
      assignments: [{ rank: 0, hostId: 'a' }],
    };
    const usesPartial = { ...breaksWhole, assignments: [{ rank: 0, hostId: 'b' }] };
    expect(packingDataCenterScorer.score(usesPartial, r)).toBeGreaterThan(
      packingDataCenterScorer.score(breaksWhole, r),
    );
  });
});

describe('consideredDataCenters', () => {
  it('keeps the request order, or catalog order by id', () => {
    const f = DEFAULT_PLUGINS.dataCenterFilters;
    expect(consideredDataCenters(DATA_CENTERS, request(), f).map((d) => d.id)).toEqual([
      'EU-CZ-1',
      'EU-RO-1',
      'US-TX-3',
    ]);
    expect(
      consideredDataCenters(DATA_CENTERS, request({ dataCenterIds: ['US-TX-3', 'EU-RO-1'] }), f).map(
        (d) => d.id,
      ),
    ).toEqual(['US-TX-3', 'EU-RO-1']);
    expect(
      consideredDataCenters(DATA_CENTERS, request({ volumeDataCenterId: 'EU-CZ-1' }), f).map((d) => d.id),
    ).toEqual(['EU-CZ-1']);
  });
});

describe('assign', () => {
  it('fills hosts in packing order, several pods per host, ranks in order', () => {
    const hosts = [host('b', 'X', 8), host('a', 'X', 8), host('c', 'X', 4)];
    expect(assign(hosts, request({ podCount: 4, gpusPerPod: 2 }), [packingHostScorer])).toEqual([
      { rank: 0, hostId: 'c' },
      { rank: 1, hostId: 'c' },
      { rank: 2, hostId: 'a' },
      { rank: 3, hostId: 'a' },
    ]);
  });

  it('returns null when the hosts cannot take every pod', () => {
    expect(
      assign([host('a', 'X', 8)], request({ podCount: 5, gpusPerPod: 2 }), [packingHostScorer]),
    ).toBeNull();
  });
});

describe('place', () => {
  const snapshot: FleetSnapshot = {
    dataCenters: DATA_CENTERS,
    hosts: [
      host('ro-1', 'EU-RO-1', 8),
      host('ro-2', 'EU-RO-1', 8),
      host('tx-1', 'US-TX-3', 8),
      host('tx-2', 'US-TX-3', 2),
      host('cz-1', 'EU-CZ-1', 8, { gpuTypeId: H100 }),
    ],
  };

  it('puts every pod in one data center', () => {
    const result = place(snapshot, request({ podCount: 3, gpusPerPod: 4 }), DEFAULT_PLUGINS);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.dataCenterId).toBe('EU-RO-1');
    expect(new Set(result.assignments.map((a) => a.hostId))).toEqual(new Set(['ro-1', 'ro-2']));
    expect(result.assignments.map((a) => a.rank)).toEqual([0, 1, 2]);
  });

  it('prefers the data center where the cluster breaks the fewest whole hosts', () => {
    const result = place(snapshot, request({ podCount: 1, gpusPerPod: 2 }), DEFAULT_PLUGINS);
    expect(result).toEqual({ ok: true, dataCenterId: 'US-TX-3', assignments: [{ rank: 0, hostId: 'tx-2' }] });
  });

  it('honours the preference order of dataCenterIds over packing', () => {
    const result = place(
      snapshot,
      request({ podCount: 1, dataCenterIds: ['EU-RO-1', 'US-TX-3'] }),
      DEFAULT_PLUGINS,
    );
    expect(result.ok && result.dataCenterId).toBe('EU-RO-1');
  });

  it('falls through to the next preferred data center that fits', () => {
    const result = place(
      snapshot,
      request({ podCount: 4, gpusPerPod: 4, dataCenterIds: ['US-TX-3', 'EU-RO-1'] }),
      DEFAULT_PLUGINS,
    );
    expect(result.ok && result.dataCenterId).toBe('EU-RO-1');
  });

  it('never splits a cluster across data centers', () => {
    // 16 free GPUs in EU-RO-1 and 10 in US-TX-3: 20 GPUs fit only across both, so no placement.
    const result = place(snapshot, request({ podCount: 5, gpusPerPod: 4 }), DEFAULT_PLUGINS);
    expect(result).toEqual({ ok: false, considered: ['EU-CZ-1', 'EU-RO-1', 'US-TX-3'] });
  });

  it('names the data centers it considered when nothing fits', () => {
    const result = place(
      snapshot,
      request({ podCount: 2, gpusPerPod: 8, dataCenterIds: ['US-TX-3'] }),
      DEFAULT_PLUGINS,
    );
    expect(result).toEqual({ ok: false, considered: ['US-TX-3'] });
  });

  it('follows the network volume to its data center', () => {
    const result = place(snapshot, request({ podCount: 1, volumeDataCenterId: 'EU-RO-1' }), DEFAULT_PLUGINS);
    expect(result.ok && result.dataCenterId).toBe('EU-RO-1');
  });

  it('pins a pod to its host, or fails', () => {
    expect(place(snapshot, request({ podCount: 1, hostId: 'ro-2' }), DEFAULT_PLUGINS)).toEqual({
      ok: true,
      dataCenterId: 'EU-RO-1',
      assignments: [{ rank: 0, hostId: 'ro-2' }],
    });
    expect(place(snapshot, request({ podCount: 1, gpusPerPod: 4, hostId: 'tx-2' }), DEFAULT_PLUGINS).ok).toBe(
      false,
    );
  });

  it('is deterministic: the same snapshot in any order gives the same plan', () => {
    const r = request({ podCount: 3, gpusPerPod: 2 });
    const forward = place(snapshot, r, DEFAULT_PLUGINS);
    const reversed = place({ ...snapshot, hosts: [...snapshot.hosts].reverse() }, r, DEFAULT_PLUGINS);
    expect(reversed).toEqual(forward);
  });
});
