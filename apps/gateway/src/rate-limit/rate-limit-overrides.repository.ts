import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { RateLimitOverrideEntity } from './rate-limit-override.entity.js';

/** Per-user quota overrides (the limiter itself reads them inside its one statement). */
@Injectable()
export class RateLimitOverridesRepository {
  private readonly repo: Repository<RateLimitOverrideEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(RateLimitOverrideEntity);
  }

  find(userId: string, policy: string): Promise<RateLimitOverrideEntity | null> {
    return this.repo.findOneBy({ userId, policy });
  }

  async save(override: RateLimitOverrideEntity): Promise<void> {
    await this.repo.upsert(override, ['userId', 'policy']);
  }

  /** Deletes the user's override of `policy` (every policy when omitted); returns how many went. */
  async delete(userId: string, policy?: string): Promise<number> {
    const result = await this.repo.delete(policy ? { userId, policy } : { userId });
    return result.affected ?? 0;
  }

  list(userId?: string): Promise<RateLimitOverrideEntity[]> {
    return this.repo.find({ where: userId ? { userId } : {}, order: { userId: 'ASC', policy: 'ASC' } });
  }
}
