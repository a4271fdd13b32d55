import { Injectable } from '@nestjs/common';
import { DomainError, Subjects, type UpdateUserCommand, type UserView } from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { toUserView } from '../account.mapper.js';
import { UsersRepository } from '../users.repository.js';

/** The rate-limit exemption, or disabled: a disabled user's keys and sessions are refused until enabled again. */
@Injectable()
export class UpdateUserHandler {
  constructor(private readonly users: UsersRepository) {}

  @CommandHandler(Subjects.account.updateUser)
  async handle({ payload, manager, now, emit }: CommandContext<UpdateUserCommand>): Promise<UserView> {
    const user = await this.users.findByIdOrName(payload.user, manager);
    if (!user) throw DomainError.notFound('user', payload.user);
    if (payload.rateLimitExempt !== undefined) user.rateLimitExempt = payload.rateLimitExempt;
    if (payload.disabled !== undefined) user.disabledAt = payload.disabled ? (user.disabledAt ?? now) : null;
    await this.users.update(
      user.id,
      { rateLimitExempt: user.rateLimitExempt, disabledAt: user.disabledAt },
      manager,
    );
    await emit(Subjects.account.changed, { userId: user.id, revokedKeyIds: [], reason: 'user-changed' });
    return toUserView(user);
  }
}
