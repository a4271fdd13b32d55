import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { RegistryAuthEntity } from './registry-auth.entity.js';

@Injectable()
export class RegistryAuthRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<RegistryAuthEntity | null> {
    return manager.findOneBy(RegistryAuthEntity, { id });
  }

  /**
   * Reads the credential and locks its row: `update` for a delete, `share` for a template or pod about to use
   * it, so a delete and a new use never pass each other.
   */
  lockById(
    id: string,
    manager: EntityManager,
    mode: 'update' | 'share' = 'share',
  ): Promise<RegistryAuthEntity | null> {
    return manager.findOne(RegistryAuthEntity, {
      where: { id },
      lock: { mode: mode === 'update' ? 'pessimistic_write' : 'pessimistic_read' },
    });
  }

  findByOwnerAndName(
    ownerId: string,
    name: string,
    manager: EntityManager,
  ): Promise<RegistryAuthEntity | null> {
    return manager.findOneBy(RegistryAuthEntity, { ownerId, name });
  }

  listByOwner(ownerId: string): Promise<RegistryAuthEntity[]> {
    return this.dataSource.manager.find(RegistryAuthEntity, {
      where: { ownerId },
      order: { createdAt: 'ASC' },
    });
  }

  insert(entity: RegistryAuthEntity, manager: EntityManager): Promise<unknown> {
    return manager.insert(RegistryAuthEntity, entity);
  }

  updateSecret(entity: RegistryAuthEntity, manager: EntityManager): Promise<unknown> {
    return manager.update(
      RegistryAuthEntity,
      { id: entity.id },
      { username: entity.username, passwordSealed: entity.passwordSealed },
    );
  }

  delete(id: string, manager: EntityManager): Promise<unknown> {
    return manager.delete(RegistryAuthEntity, { id });
  }
}
