import { Args, Mutation, ResolveField, Resolver } from '@nestjs/graphql';
import type { Actor } from '@app/contracts';
import { Auth, CurrentActor, Resource } from '../auth/auth.decorators.js';
import { SshKeysService } from '../ssh-keys/ssh-keys.service.js';
import { UpdateUserSettingsInput } from './inputs/user-settings.input.js';
import { MyselfModel } from './models/myself.model.js';
import { UserSettingsModel } from './models/user-settings.model.js';

/**
 * The account's SSH keys as provisioners read and write them: `myself { pubKey }` and
 * `updateUserSettings(input: {pubKey})`, one key per line, on the keys of `/v1/user/ssh-keys` and
 * `/v2/account/ssh-keys`.
 */
@Auth({ key: 'query-or-bearer' })
@Resource('settings')
@Resolver(() => MyselfModel)
export class AccountResolver {
  constructor(private readonly sshKeys: SshKeysService) {}

  @ResolveField('pubKey', () => String, { description: "The account's SSH public keys, one per line" })
  async pubKey(@CurrentActor('settings') actor: Actor): Promise<string> {
    return (await this.sshKeys.keySet(actor)).keys.join('\n');
  }

  @Mutation(() => UserSettingsModel, { description: "Replaces the account's SSH public keys (one per line)" })
  async updateUserSettings(
    @Args('input') input: UpdateUserSettingsInput,
    @CurrentActor() actor: Actor,
  ): Promise<UserSettingsModel> {
    const lines = input.pubKey
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
    const { keys } = await this.sshKeys.replace(lines, actor);
    return { id: actor.userId, pubKey: keys.join('\n') };
  }
}
