import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, type UserView } from '@app/contracts';
import { QueryBus } from '@app/messaging';
import { toUserView } from '../accounts/account.mapper.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { liveResourcesOf } from '../accounts/live-resources.js';

/**
 * The operators' user routes (`/v2/users`): what the keys CLI does for users, over HTTP, each change the same
 * `account.cmd.*` command. Refusals name the user in the operator's words.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly queries: QueryBus,
  ) {}

  async list(): Promise<UserView[]> {
    return (await this.accounts.listUsers()).map(toUserView);
  }

  private async found(idOrName: string) {
    const user = await this.accounts.findUser(idOrName);
    if (!user) throw DomainError.notFound('user', idOrName);
    return user;
  }

  async update(
    idOrName: string,
    change: { disabled?: boolean; rateLimitExempt?: boolean },
  ): Promise<UserView> {
    return this.accounts.updateUser((await this.found(idOrName)).id, change);
  }

  /** Refused while the user's own account owns anything live, or a team would be left without an owner. */
  async delete(idOrName: string): Promise<void> {
    const user = await this.found(idOrName);
    const live = await liveResourcesOf(this.queries, user.id);
    if (live.length) {
      throw new DomainError(
        ErrorCode.InUse,
        `user ${user.name}'s account still owns ${live.join(', ')}: terminate or delete them first`,
      );
    }
    await this.accounts.deleteUser(user.id);
  }
}
