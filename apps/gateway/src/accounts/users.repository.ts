import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { UserEntity } from './user.entity.js';

@Injectable()
export class UsersRepository {
  private readonly repo: Repository<UserEntity>;

  constructor(dataSource: DataSource) {
    this.repo = dataSource.getRepository(UserEntity);
  }

  insert(user: UserEntity): Promise<unknown> {
    return this.repo.insert(user);
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.repo.findOneBy({ id });
  }

  findByIdOrName(idOrName: string): Promise<UserEntity | null> {
    return this.repo.findOne({ where: [{ id: idOrName }, { name: idOrName }] });
  }

  list(): Promise<UserEntity[]> {
    return this.repo.find({ order: { createdAt: 'ASC' } });
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  async setRateLimitExempt(id: string, exempt: boolean): Promise<void> {
    await this.repo.update({ id }, { rateLimitExempt: exempt });
  }
}
