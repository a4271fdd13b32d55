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

/**
 * A public template of the catalog is the operator's: everyone may read it and start from it, no user may change
 * or delete it (403, as for another user's template; the operator edits the catalog file).
 */
export function catalogTemplateIsReadOnly(id: string): DomainError {
  return new DomainError(
    ErrorCode.Forbidden,
    `template ${id} is a public template of the catalog: start from it, or create a template of your own`,
  );
}
