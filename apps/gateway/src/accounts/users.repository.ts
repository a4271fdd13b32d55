import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { UserEntity } from './user.entity.js';

/** Users. Reads without a manager use the pool; the account handlers pass their transaction's. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  private m(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  insert(user: UserEntity, manager?: EntityManager): Promise<unknown> {
    return this.m(manager).insert(UserEntity, user);
  }

  findById(id: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.m(manager).findOneBy(UserEntity, { id });
  }

  findByIdOrName(idOrName: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.m(manager).findOne(UserEntity, { where: [{ id: idOrName }, { name: idOrName }] });
  }

  findBySsoSubject(subject: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.m(manager).findOneBy(UserEntity, { ssoSubject: subject });
  }

  list(): Promise<UserEntity[]> {
    return this.m().find(UserEntity, { order: { createdAt: 'ASC' } });
  }

  count(): Promise<number> {
    return this.m().count(UserEntity);
  }

  async update(
    id: string,
    fields: Partial<Pick<UserEntity, 'rateLimitExempt' | 'disabledAt'>>,
    manager: EntityManager,
  ): Promise<void> {
    await manager.update(UserEntity, { id }, fields);
  }

  async delete(id: string, manager: EntityManager): Promise<void> {
    await manager.delete(UserEntity, { id });
  }
}
