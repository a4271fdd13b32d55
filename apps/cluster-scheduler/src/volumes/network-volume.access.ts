import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import type { NetworkVolumeEntity } from './network-volume.entity.js';

/** 404 for an unknown id, 403 for another user's volume. */
export function ownedNetworkVolume(
  entity: NetworkVolumeEntity | null,
  id: string,
  actor: Actor,
): NetworkVolumeEntity {
  if (!entity) throw DomainError.notFound('network volume', id);
  if (entity.ownerId !== actor.userId) {
    throw new DomainError(ErrorCode.Forbidden, `network volume ${id} belongs to another user`);
  }
  return entity;
}

/** A volume named in a request body (a mount): it must exist and be the caller's, else 422 naming the field. */
export function mountableNetworkVolume(
  entity: NetworkVolumeEntity | null,
  field: string,
  id: string,
  ownerId: string,
): NetworkVolumeEntity {
  if (!entity || entity.ownerId !== ownerId) {
    throw new DomainError(ErrorCode.ValidationFailed, 'the request failed validation', [
      `${field} must be the id of one of your network volumes; "${id}" is not one`,
    ]);
  }
  return entity;
}
