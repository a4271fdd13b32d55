import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreateRegistryAuthDto, type Actor, type RegistryAuthView, type RegistryList } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { RegistryAuthService } from './registry-auth.service.js';

/**
 * `/v2/registries` (management API v2): the same credentials as `/v1/containerregistryauth`, through the same
 * service; only the list is wrapped (`{"registries": [...]}`).
 */
@ApiTags('Container registry credentials')
@Auth({ key: 'bearer' })
@Resource('registry-auth')
@Controller('v2/registries')
export class RegistriesController {
  constructor(private readonly registryAuth: RegistryAuthService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a container registry credential', {
    returns: 'RegistryAuthView',
    description:
      'The username and password are write-only: the password is sealed before it leaves the gateway.',
    errors: { 409: 'you already have a credential with this name' },
  })
  create(@Body() dto: CreateRegistryAuthDto, @CurrentActor() actor: Actor): Promise<RegistryAuthView> {
    return this.registryAuth.create(dto, actor);
  }

  @Get()
  @Operation("List the caller's container registry credentials", { returns: 'RegistryList' })
  async list(@CurrentActor() actor: Actor): Promise<RegistryList> {
    return { registries: await this.registryAuth.list(actor) };
  }

  @Get(':registryId')
  @Operation('Get a container registry credential', { returns: 'RegistryAuthView' })
  get(@Param('registryId') id: string, @CurrentActor() actor: Actor): Promise<RegistryAuthView> {
    return this.registryAuth.get(id, actor);
  }

  @Delete(':registryId')
  @HttpCode(204)
  @Operation('Delete a container registry credential', {
    errors: { 400: 'a template or a pod still uses the credential' },
  })
  delete(@Param('registryId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.registryAuth.delete(id, actor);
  }
}
