import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CreateSshKeyDto, type Actor, type SshKeyView } from '@app/contracts';
import { Auth, CurrentActor } from '../auth/auth.decorators.js';
import { SshKeysService } from './ssh-keys.service.js';

/** `/v1/user/ssh-keys`: the account's SSH public keys, injected as PUBLIC_KEY by `startSsh`. */
@Auth({ key: 'bearer' })
@Controller('v1/user/ssh-keys')
export class SshKeysController {
  constructor(private readonly sshKeys: SshKeysService) {}

  @Get()
  list(@CurrentActor() actor: Actor): Promise<SshKeyView[]> {
    return this.sshKeys.list(actor);
  }

  @Post()
  @HttpCode(201)
  create(@Body() dto: CreateSshKeyDto, @CurrentActor() actor: Actor): Promise<SshKeyView> {
    return this.sshKeys.create(dto, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  delete(@Param('id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.sshKeys.delete(id, actor);
  }
}
