import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import type { PodEntity } from './pod.entity.js';

/** 404 for an unknown id, 403 for another user's pod; system actors (the scheduler, the autoscaler) see all. */
export function ownedPod(pod: PodEntity | null, id: string, actor: Actor): PodEntity {
  if (!pod) throw DomainError.notFound('pod', id);
  if (actor.kind !== 'system' && pod.ownerId !== actor.userId) {
    throw new DomainError(ErrorCode.Forbidden, `pod ${id} belongs to another user`);
  }
  return pod;
}
