import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import type { EndpointEntity } from './endpoint.entity.js';

/** 404 for an unknown (or deleted) id, 403 for another user's endpoint; system actors see every endpoint. */
export function ownedEndpoint(entity: EndpointEntity | null, id: string, actor: Actor): EndpointEntity {
  if (!entity) throw DomainError.notFound('endpoint', id);
  if (actor.kind !== 'system' && entity.ownerId !== actor.userId) {
    throw new DomainError(ErrorCode.Forbidden, `endpoint ${id} belongs to another user`);
  }
  return entity;
}
