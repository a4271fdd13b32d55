import {
  DEFAULT_VOLUME_MOUNT_PATH,
  DomainError,
  ErrorCode,
  podFieldNames,
  type CreatePodCommand,
} from '@app/contracts';
import type { TemplateEntity } from '../../templates/template.entity.js';
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
 * placement and the runtime see one network volume whichever API created the pod; /v1's and GraphQL's
 * `volumeInGb` is v2's persistent mount, at `volumeMountPath`. A request that asks for no storage of its own gets
 * its template's pod volume (`volumeInGb` at its path, or the request's `volumeMountPath`), as RunPod's pods do;
 * a CPU pod does not (no persistent mount on a CPU pod). Errors name the fields as the request's surface does.
 */
export function createMounts(
  payload: CreatePodCommand,
  cpuPod: boolean,
  template: Pick<TemplateEntity, 'volumeGb' | 'volumeMountPath'> | null = null,
): CreateMounts {
  const field = podFieldNames(payload.vocabulary);
  const volume = payload.mounts?.network?.[0];
  const persistent = payload.mounts?.persistent ?? ownVolume(payload, template);
  if (persistent && (volume || payload.networkVolumeId)) {
    const network = volume ? 'mounts.network' : field('networkVolumeId');
    throw new DomainError(
      ErrorCode.BadRequest,
      `${field('volumeInGb')} and ${network}: a pod has one volume, set one of them`,
    );
  }
  if (persistent && cpuPod) {
    throw new DomainError(ErrorCode.BadRequest, `${field('volumeInGb')} is not allowed on a CPU pod`);
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
  if (!payload.networkVolumeId && template?.volumeGb && !cpuPod) {
    const path = payload.volumeMountPath ?? template.volumeMountPath ?? DEFAULT_VOLUME_MOUNT_PATH;
    return {
      mounts: { persistent: { size: template.volumeGb, path } },
      networkVolumeId: null,
      volumeMountPath: path,
    };
  }
  return { mounts: null, networkVolumeId: payload.networkVolumeId ?? null, volumeMountPath: null };
}

/** /v1's and GraphQL's `volumeInGb` as a persistent mount; null for 0 or absent. */
function ownVolume(
  payload: CreatePodCommand,
  template: Pick<TemplateEntity, 'volumeMountPath'> | null,
): { size: number; path: string } | null {
  if (!payload.volumeInGb) return null;
  const path = payload.volumeMountPath ?? template?.volumeMountPath ?? DEFAULT_VOLUME_MOUNT_PATH;
  return { size: payload.volumeInGb, path };
}
