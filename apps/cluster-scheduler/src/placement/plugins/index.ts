import type { PlacementPlugins } from '../placement.js';
import { capacityFilter } from './capacity.plugin.js';
import { dataCenterAllowListFilter, dataCenterPreferenceScorer } from './data-center-preference.plugin.js';
import { networkVolumeLocalityFilter } from './network-volume-locality.plugin.js';
import { packingDataCenterScorer, packingHostScorer } from './packing.plugin.js';
import { pinnedHostFilter } from './pinned-host.plugin.js';
import { regionFilter } from './region.plugin.js';

/** The plugins every placement runs with. */
export const DEFAULT_PLUGINS: PlacementPlugins = {
  dataCenterFilters: [dataCenterAllowListFilter, regionFilter, networkVolumeLocalityFilter],
  hostFilters: [capacityFilter, pinnedHostFilter],
  dataCenterScorers: [dataCenterPreferenceScorer, packingDataCenterScorer],
  hostScorers: [packingHostScorer],
};
