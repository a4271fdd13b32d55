import { Injectable } from '@nestjs/common';
import { Subjects, type GetRegistryAuthQuery, type RegistryAuthView } from '@app/contracts';
import { QueryHandler, type QueryContext } from '@app/messaging';
import { ownedRegistryAuth } from '../registry-auth.access.js';
import { toRegistryAuthView } from '../registry-auth.mapper.js';
import { RegistryAuthRepository } from '../registry-auth.repository.js';

@Injectable()
export class GetRegistryAuthHandler {
  constructor(private readonly repository: RegistryAuthRepository) {}

  @QueryHandler(Subjects.registryAuth.get)
  async handle(ctx: QueryContext<GetRegistryAuthQuery>): Promise<RegistryAuthView> {
    const { id } = ctx.payload;
    return toRegistryAuthView(ownedRegistryAuth(await this.repository.findById(id), id, ctx.actor));
  }
}
