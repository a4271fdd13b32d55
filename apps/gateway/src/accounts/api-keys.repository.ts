import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity.js';

@Injectable()
export class ApiKeysRepository {
  private readonly repo: Repository<ApiKeyEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(ApiKeyEntity);
  }

  insert(key: ApiKeyEntity): Promise<unknown> {
    return this.repo.insert(key);
  }

  findByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.repo.findOneBy({ keyHash });
  }

  list(userId?: string): Promise<ApiKeyEntity[]> {
    return this.repo.find({ where: userId ? { userId } : {}, order: { createdAt: 'ASC' } });
  }

  async revokeWorkerKeys(endpointId: string, at: Date): Promise<number> {
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({ revokedAt: at })
      .where("scope = 'worker' AND :endpointId = ANY(endpoint_ids) AND revoked_at IS NULL", { endpointId })
      .execute();
    return result.affected ?? 0;
  }

  async revoke(id: string, at: Date): Promise<boolean> {
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({ revokedAt: at })
      .where('id = :id AND revoked_at IS NULL', { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
