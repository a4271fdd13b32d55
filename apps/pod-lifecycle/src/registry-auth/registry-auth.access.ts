import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import type { RegistryAuthEntity } from './registry-auth.entity.js';

/** 404 for an unknown id, 403 for another user's credential. */
export function ownedRegistryAuth(
  entity: RegistryAuthEntity | null,
  id: string,
  actor: Actor,
): RegistryAuthEntity {
  if (!entity) throw DomainError.notFound('container registry credential', id);
  if (entity.ownerId !== actor.userId) {
    throw new DomainError(ErrorCode.Forbidden, `container registry credential ${id} belongs to another user`);
  }
  return entity;
}
