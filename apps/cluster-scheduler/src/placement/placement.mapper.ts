import type { PlacementView } from '@app/contracts';
import type { PlacedPod } from './placement.applier.js';
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

/** A pod just placed, from what the placement wrote (nothing read back). */
export function toPlacedPodView(
  dataCenterId: string,
  pod: PlacedPod,
  gpu: { gpuTypeId: string | null; gpuCount: number },
): PlacementView {
  return {
    podId: pod.podId,
    hostId: pod.hostId,
    dataCenterId,
    publicIp: pod.publicIp,
    gpuTypeId: gpu.gpuTypeId,
    gpuCount: gpu.gpuCount,
    portMappings: pod.portMappings,
  };
}
