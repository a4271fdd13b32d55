import { DomainError, ErrorCode, type CreatePodCommand } from '@app/contracts';
import type { PodMounts } from '../pod.entity.js';

/** Where a new pod's storage comes from, once the interface's mount rules have been applied. */
export interface CreateMounts {
  mounts: PodMounts | null;
  networkVolumeId: string | null;
  volumeMountPath: string | null;
}

/**
 * The interface's mount rules at create (400 for each): at most one of `persistent` or `network`; no persistent
 * mount on a CPU pod (it is pinned to a GPU host's disk); a network mount and a different `networkVolumeId`
 * cannot both be asked for. A network mount is the same as /v1's `networkVolumeId` + `volumeMountPath`, so
 * placement and the runtime see one network volume whichever API created the pod.
 */
export function createMounts(payload: CreatePodCommand, cpuPod: boolean): CreateMounts {
  const { persistent, network } = payload.mounts ?? {};
  const volume = network?.[0];
  if (persistent && network) {
    throw new DomainError(ErrorCode.BadRequest, 'mounts: set persistent or network, not both');
  }
  if (persistent && cpuPod) {
    throw new DomainError(ErrorCode.BadRequest, 'mounts.persistent is not allowed on a CPU pod');
  }
  if (volume && payload.networkVolumeId && payload.networkVolumeId !== volume.volumeId) {
    throw new DomainError(ErrorCode.BadRequest, 'mounts.network names another volume than networkVolumeId');
  }
  if (persistent) {
    return {
      mounts: { persistent: { ...persistent } },
      networkVolumeId: null,
      volumeMountPath: persistent.path,
    };
  }
  if (volume) {
    return {
      mounts: { network: [{ ...volume }] },
      networkVolumeId: volume.volumeId,
      volumeMountPath: volume.path,
    };
  }
  return { mounts: null, networkVolumeId: payload.networkVolumeId ?? null, volumeMountPath: null };
}
