import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CreateRegistryAuthDto, type Actor, type RegistryAuthView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { RegistryAuthService } from './registry-auth.service.js';

@Auth({ key: 'bearer' })
@Controller('v1/containerregistryauth')
export class RegistryAuthController {
  constructor(private readonly registryAuth: RegistryAuthService) {}

  @Post()
  @HttpCode(201)
  create(@Body() dto: CreateRegistryAuthDto, @CurrentActor() actor: Actor): Promise<RegistryAuthView> {
    return this.registryAuth.create(dto, actor);
  }

  @Get()
  list(@CurrentActor() actor: Actor): Promise<RegistryAuthView[]> {
    return this.registryAuth.list(actor);
  }

  @Get(':containerRegistryAuthId')
  get(@Param('containerRegistryAuthId') id: string, @CurrentActor() actor: Actor): Promise<RegistryAuthView> {
    return this.registryAuth.get(id, actor);
  }

  @Delete(':containerRegistryAuthId')
  @HttpCode(204)
  delete(@Param('containerRegistryAuthId') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.registryAuth.delete(id, actor);
  }
}
