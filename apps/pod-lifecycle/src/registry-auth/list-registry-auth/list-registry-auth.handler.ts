import { Injectable } from '@nestjs/common';
import { Subjects, type ListRegistryAuthQuery, type RegistryAuthView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { toRegistryAuthView } from '../registry-auth.mapper.js';
import { RegistryAuthRepository } from '../registry-auth.repository.js';

@Injectable()
export class ListRegistryAuthHandler {
  constructor(private readonly repository: RegistryAuthRepository) {}

  @QueryHandler(Subjects.registryAuth.list)
  async handle(ctx: QueryContext<ListRegistryAuthQuery>): Promise<RegistryAuthView[]> {
    return (await this.repository.listByOwner(ctx.actor.userId)).map(toRegistryAuthView);
  }
}
