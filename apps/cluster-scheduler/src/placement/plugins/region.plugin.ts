import type { DataCenterFilter } from '../placement.js';

/** With `regions`, only data centers in those region codes. */
export const regionFilter: DataCenterFilter = {
  name: 'region',
  accepts: (dataCenter, request) => !request.regions.length || request.regions.includes(dataCenter.region),
};
