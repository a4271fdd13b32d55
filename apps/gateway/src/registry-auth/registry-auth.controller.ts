import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreateRegistryAuthDto, type Actor, type RegistryAuthView } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { RegistryAuthService } from './registry-auth.service.js';

@ApiTags('Container registry credentials')
@Auth({ key: 'bearer' })
@Resource('registry-auth')
@Controller('v1/containerregistryauth')
export class RegistryAuthController {
  constructor(private readonly registryAuth: RegistryAuthService) {}

  @Post()
  @HttpCode(201)
  @Operation('Create a container registry credential', {
    returns: 'RegistryAuthView',
    description: 'The password is write-only: it is sealed before it leaves the gateway and never returned.',
    errors: { 409: 'you already have a credential with this name' },
  })
  create(@Body() dto: CreateRegistryAuthDto, @CurrentActor() actor: Actor): Promise<RegistryAuthView> {
    return this.registryAuth.create(dto, actor);
  }

  @Get()
  @Operation("List the caller's container registry credentials", { returns: 'RegistryAuthView', array: true })
  list(@CurrentActor() actor: Actor): Promise<RegistryAuthView[]> {
    return this.registryAuth.list(actor);
  }

  @Get(':containerRegistryAuthId')
  @Operation('Get a container registry credential', { returns: 'RegistryAuthView' })
  get(@Param('containerRegistryAuthId') id: string, @CurrentActor() actor: Actor): Promise<RegistryAuthView> {
    return this.registryAuth.get(id, actor);
  }

  @Delete(':containerRegistryAuthId')
  @HttpCode(204)
  @Operation('Delete a container registry credential', {
    errors: { 400: 'a template or a pod still uses the credential' },
  })
  delete(@Param('containerRegistryAuthId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.registryAuth.delete(id, actor);
  }
}
