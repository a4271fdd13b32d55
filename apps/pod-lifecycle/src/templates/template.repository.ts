import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { TemplatesUsingRegistryAuth } from '../registry-auth/registry-auth.users.js';
import { TemplateEntity } from './template.entity.js';

@Injectable()
export class TemplateRepository implements TemplatesUsingRegistryAuth {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<TemplateEntity | null> {
    return manager.findOneBy(TemplateEntity, { id });
  }

  /** Reads the template and locks its row: `update` for a delete, `share` for a pod about to use it. */
  lockById(
    id: string,
    manager: EntityManager,
    mode: 'update' | 'share' = 'share',
  ): Promise<TemplateEntity | null> {
    return manager.findOne(TemplateEntity, {
      where: { id },
      lock: { mode: mode === 'update' ? 'pessimistic_write' : 'pessimistic_read' },
    });
  }

  findByOwnerAndName(ownerId: string, name: string, manager: EntityManager): Promise<TemplateEntity | null> {
    return manager.findOneBy(TemplateEntity, { ownerId, name });
  }

  listByOwner(ownerId: string): Promise<TemplateEntity[]> {
    return this.dataSource.manager.find(TemplateEntity, {
      where: { ownerId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** The id of a template pulling with the credential, if any. */
  async registryAuthInUse(registryAuthId: string, manager: EntityManager): Promise<string | null> {
    const template = await manager.findOne(TemplateEntity, {
      where: { registryAuthId },
      select: { id: true },
      order: { id: 'ASC' }, // the refusal names it: the same one in a rebuild
    });
    return template?.id ?? null;
  }

  insert(entity: TemplateEntity, manager: EntityManager): Promise<unknown> {
    return manager.insert(TemplateEntity, entity);
  }

  save(entity: TemplateEntity, manager: EntityManager): Promise<unknown> {
    return manager.save(TemplateEntity, entity);
  }

  delete(id: string, manager: EntityManager): Promise<unknown> {
    return manager.delete(TemplateEntity, { id });
  }
}
