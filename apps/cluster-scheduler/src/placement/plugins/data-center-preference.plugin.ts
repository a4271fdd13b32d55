import type { DataCenterFilter, DataCenterScorer } from '../placement.js';

/** With a `dataCenterIds` list, only those data centers are used. */
export const dataCenterAllowListFilter: DataCenterFilter = {
  name: 'data-center-allow-list',
  accepts: (dataCenter, request) =>
    !request.dataCenterIds.length || request.dataCenterIds.includes(dataCenter.id),
};

/** Earlier in `dataCenterIds` wins over any other score. */
export const dataCenterPreferenceScorer: DataCenterScorer = {
  name: 'data-center-preference',
  score: (candidate, request) =>
    candidate.preferenceIndex < 0 ? 0 : (request.dataCenterIds.length - candidate.preferenceIndex) * 1e9,
};
