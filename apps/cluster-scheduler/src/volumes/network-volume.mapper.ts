import type { NetworkVolumeView } from '@app/contracts';
import type { NetworkVolumeEntity } from './network-volume.entity.js';

export function toNetworkVolumeView(entity: NetworkVolumeEntity): NetworkVolumeView {
  return {
    id: entity.id,
    name: entity.name,
    size: entity.sizeGb,
    dataCenterId: entity.dataCenterId,
    createdAt: entity.createdAt.toISOString(),
  };
}
