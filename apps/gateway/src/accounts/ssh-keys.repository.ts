import { Injectable } from '@nestjs/common';
import { DataSource, In, Not, type Repository } from 'typeorm';
import { SshKeyEntity } from './ssh-key.entity.js';

@Injectable()
export class SshKeysRepository {
  private readonly repo: Repository<SshKeyEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.repo = dataSource.getRepository(SshKeyEntity);
  }

  insert(key: SshKeyEntity): Promise<unknown> {
    return this.repo.insert(key);
  }

  listByUser(userId: string): Promise<SshKeyEntity[]> {
    return this.repo.find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  countByUser(userId: string): Promise<number> {
    return this.repo.countBy({ userId });
  }

  findByFingerprint(userId: string, fingerprint: string): Promise<SshKeyEntity | null> {
    return this.repo.findOneBy({ userId, fingerprint });
  }

  findById(id: string): Promise<SshKeyEntity | null> {
    return this.repo.findOneBy({ id });
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }

  /**
   * Makes `keep` (ids of rows already there) plus `add` the user's whole set, in one transaction: a concurrent
   * reader sees the old set or the new one, never a mix.
   */
  async replaceForUser(userId: string, keep: string[], add: SshKeyEntity[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(SshKeyEntity, keep.length ? { userId, id: Not(In(keep)) } : { userId });
      if (add.length) await manager.insert(SshKeyEntity, add);
    });
  }
}
