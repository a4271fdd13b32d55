import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SshKeySetDto, type Actor, type SshKeySet } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { Operation } from '../openapi/openapi.decorators.js';
import { SshKeysService } from './ssh-keys.service.js';

/**
 * `/v2/account/ssh-keys` (management API v2): the keys of `/v1/user/ssh-keys` as one set of authorized_keys
 * lines, which a PUT replaces (SkyPilot reads it, adds its key and puts it back).
 */
@ApiTags('SSH keys')
@Auth({ key: 'bearer' })
@Resource('settings')
@Controller('v2/account/ssh-keys')
export class AccountSshKeysController {
  constructor(private readonly sshKeys: SshKeysService) {}

  @Get()
  @Operation("The account's SSH public keys", { returns: 'SshKeySet' })
  get(@CurrentActor() actor: Actor): Promise<SshKeySet> {
    return this.sshKeys.keySet(actor);
  }

  @Put()
  @Operation("Replace the account's SSH public keys", {
    returns: 'SshKeySet',
    description:
      'Keys not listed are removed (`{"keys": []}` removes all); pods created afterwards get the new set.',
  })
  replace(@Body() dto: SshKeySetDto, @CurrentActor() actor: Actor): Promise<SshKeySet> {
    return this.sshKeys.replace(dto.keys, actor);
  }
}
