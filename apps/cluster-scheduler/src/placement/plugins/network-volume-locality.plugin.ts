import type { DataCenterFilter } from '../placement.js';

/** A network volume lives in one data center: pods that mount it go there. */
export const networkVolumeLocalityFilter: DataCenterFilter = {
  name: 'network-volume-locality',
  accepts: (dataCenter, request) =>
    request.volumeDataCenterId === null || dataCenter.id === request.volumeDataCenterId,
};
