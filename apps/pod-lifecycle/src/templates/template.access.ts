import { DomainError, ErrorCode, type Actor } from '@app/contracts';
import type { TemplateEntity } from './template.entity.js';

/** 404 for an unknown id, 403 for another user's template; system actors (scheduler, autoscaler) read any. */
export function ownedTemplate(entity: TemplateEntity | null, id: string, actor: Actor): TemplateEntity {
  if (!entity) throw DomainError.notFound('template', id);
  if (actor.kind !== 'system' && entity.ownerId !== actor.userId) {
    throw new DomainError(ErrorCode.Forbidden, `template ${id} belongs to another user`);
  }
  return entity;
}
