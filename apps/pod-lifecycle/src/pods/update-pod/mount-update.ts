import { DomainError, ErrorCode, type MountsDto } from '@app/contracts';
import type { PodEntity, PodMounts } from '../pod.entity.js';

/**
 * The interface's update semantics for mounts (400 for each refusal): omitted or `{}` leaves the mount as it is;
 * `network: []` is refused; a mount kind the pod did not have at create (persistent on a network pod, network on
 * a persistent pod, any mount on a pod without one) is refused; a different network `volumeId` is refused; the
 * path may change. Null when nothing changes.
 */
export function updatedMounts(
  pod: PodEntity,
  update: MountsDto | undefined,
): { mounts: PodMounts; volumeMountPath: string } | null {
  if (!update || (update.persistent === undefined && update.network === undefined)) return null;
  const refuse = (why: string): never => {
    throw new DomainError(ErrorCode.BadRequest, `mounts: ${why}`);
  };
  if (update.persistent && update.network) refuse('set persistent or network, not both');
  const current = currentMounts(pod);
  if (update.network) {
    const [volume] = update.network;
    if (!volume) refuse('network cannot be emptied; the volume stays mounted for the life of the pod');
    if (!current?.network?.[0]) refuse('this pod was created without a network mount; none can be added');
    if (volume.volumeId !== current!.network![0].volumeId) {
      refuse(`the network volume cannot change (it is ${current!.network![0].volumeId}); only its path can`);
    }
    return { mounts: { network: [{ ...volume }] }, volumeMountPath: volume.path };
  }
  if (!current?.persistent) refuse('this pod was created without a persistent mount; none can be added');
  return { mounts: { persistent: { ...update.persistent! } }, volumeMountPath: update.persistent!.path };
}

/**
 * /v1's `volumeMountPath`: the new path of the pod's mount, whichever kind it is (the same change as a v2 update
 * of that mount's path); a pod without a mount only records it, as a create from a template does.
 */
export function movedMountPath(
  pod: PodEntity,
  path: string,
): { mounts: PodMounts | null; volumeMountPath: string } {
  const current = currentMounts(pod);
  const network = current?.network?.[0];
  if (network) return { mounts: { network: [{ ...network, path }] }, volumeMountPath: path };
  if (current?.persistent) {
    return { mounts: { persistent: { ...current.persistent, path } }, volumeMountPath: path };
  }
  return { mounts: pod.mounts, volumeMountPath: path };
}

/** The pod's mounts; a /v1 pod with a network volume has one without a `mounts` record. */
function currentMounts(pod: PodEntity): PodMounts | null {
  if (pod.mounts) return pod.mounts;
  if (pod.networkVolumeId) {
    return { network: [{ volumeId: pod.networkVolumeId, path: pod.volumeMountPath ?? '/runpod-volume' }] };
  }
  return null;
}
