import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import type { ClusterEntity } from './cluster.entity.js';

/** 404 for an unknown (or deleted) cluster, 403 for another user's. */
export function ownedCluster(entity: ClusterEntity | null, id: string, actor: Actor): ClusterEntity {
  if (!entity) throw DomainError.notFound('cluster', id);
  if (entity.ownerId !== actor.userId) {
    throw new DomainError(ErrorCode.Forbidden, `cluster ${id} belongs to another user`);
  }
  return entity;
}
