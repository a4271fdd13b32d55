import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { SshKeyEntity } from './ssh-key.entity.js';

@Injectable()
export class SshKeysRepository {
  private readonly repo: Repository<SshKeyEntity>;

  constructor(dataSource: DataSource) {
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
}
