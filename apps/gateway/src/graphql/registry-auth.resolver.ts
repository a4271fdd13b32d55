import { Args, Mutation, ResolveField, Resolver } from '@nestjs/graphql';
import type { Actor } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { RegistryAuthService } from '../registry-auth/registry-auth.service.js';
import { SaveRegistryAuthInput, UpdateRegistryAuthInput } from './inputs/registry-auth.input.js';
import { MyselfModel } from './models/myself.model.js';
import { RegistryAuthModel } from './models/registry-auth.model.js';

/**
 * The Python SDK's registry credential documents: `saveRegistryAuth`, `updateRegistryAuth`,
 * `deleteRegistryAuth(registryAuthId:)` and `myself { containerRegistryCreds { id name } }`, on the service
 * behind `/v1/containerregistryauth` and `/v2/registries`.
 */
@Auth({ key: 'query-or-bearer' })
@Resource('registry-auth')
@Resolver(() => MyselfModel)
export class RegistryAuthResolver {
  constructor(private readonly registryAuth: RegistryAuthService) {}

  @ResolveField('containerRegistryCreds', () => [RegistryAuthModel])
  containerRegistryCreds(@CurrentActor('registry-auth') actor: Actor): Promise<RegistryAuthModel[]> {
    return this.registryAuth.list(actor);
  }

  @Mutation(() => RegistryAuthModel, { description: 'Creates a container registry credential' })
  saveRegistryAuth(
    @Args('input') input: SaveRegistryAuthInput,
    @CurrentActor() actor: Actor,
  ): Promise<RegistryAuthModel> {
    return this.registryAuth.create(input, actor);
  }

  @Mutation(() => RegistryAuthModel, { description: "Replaces a credential's username and password" })
  updateRegistryAuth(
    @Args('input') input: UpdateRegistryAuthInput,
    @CurrentActor() actor: Actor,
  ): Promise<RegistryAuthModel> {
    return this.registryAuth.update(input.id, input.username, input.password, actor);
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Deletes a credential no template or pod uses; answers null',
  })
  async deleteRegistryAuth(
    @Args('registryAuthId', { type: () => String }) id: string,
    @CurrentActor() actor: Actor,
  ): Promise<null> {
    await this.registryAuth.delete(id, actor);
    return null;
  }
}
