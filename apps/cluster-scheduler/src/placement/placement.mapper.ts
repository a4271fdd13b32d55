import type { PlacementView } from '@app/contracts';
import type { ReservationEntity } from './reservation.entity.js';

export function toPlacementView(reservation: ReservationEntity, publicIp: string): PlacementView {
  return {
    podId: reservation.podId,
    hostId: reservation.hostId,
    dataCenterId: reservation.dataCenterId,
    publicIp,
    gpuTypeId: reservation.gpuTypeId,
    gpuCount: reservation.gpuCount,
    portMappings: reservation.portMappings,
  };
}
