import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreateSshKeyDto, type Actor, type SshKeyView } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { SshKeysService } from './ssh-keys.service.js';

/** `/v1/user/ssh-keys`: the account's SSH public keys, injected as PUBLIC_KEY by `startSsh`. */
@ApiTags('SSH keys')
@Auth({ key: 'bearer' })
@Resource('settings')
@Controller('v1/user/ssh-keys')
export class SshKeysController {
  constructor(private readonly sshKeys: SshKeysService) {}

  @Get()
  @Operation("List the account's SSH public keys", { returns: 'SshKeyView', array: true })
  list(@CurrentActor() actor: Actor): Promise<SshKeyView[]> {
    return this.sshKeys.list(actor);
  }

  @Post()
  @HttpCode(201)
  @Operation('Register an SSH public key', {
    returns: 'SshKeyView',
    description: 'Clusters created with startSsh get the keys as PUBLIC_KEY.',
    errors: { 409: 'the key is already registered' },
  })
  create(@Body() dto: CreateSshKeyDto, @CurrentActor() actor: Actor): Promise<SshKeyView> {
    return this.sshKeys.create(dto, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  @Operation('Delete an SSH public key')
  delete(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.sshKeys.delete(id, actor);
  }
}
