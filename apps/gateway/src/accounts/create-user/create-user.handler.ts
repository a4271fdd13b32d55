import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  Subjects,
  deriveId,
  type CreateUserCommand,
  type UserView,
} from '@app/contracts';
import { CommandHandler, type CommandContext } from '@app/messaging';
import { toUserView } from '../account.mapper.js';
import { freeAccountName } from '../team-rules.js';
import { TeamsRepository } from '../teams.repository.js';
import { UserEntity } from '../user.entity.js';
import { UsersRepository } from '../users.repository.js';

@Injectable()
export class CreateUserHandler {
  constructor(
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
  ) {}

  @CommandHandler(Subjects.account.createUser)
  async handle({ envelope, payload, manager, now }: CommandContext<CreateUserCommand>): Promise<UserView> {
    await freeAccountName(this.users, this.teams, payload.name, manager);
    if (payload.ssoSubject && (await this.users.findBySsoSubject(payload.ssoSubject, manager))) {
      throw new DomainError(ErrorCode.Conflict, 'a user already signs in with this identity');
    }
    const user = Object.assign(new UserEntity(), {
      id: `user_${deriveId(envelope.commandId, 'user')}`,
      name: payload.name,
      rateLimitExempt: payload.rateLimitExempt ?? false,
      createdAt: now,
      disabledAt: null,
      ssoSubject: payload.ssoSubject ?? null,
    } satisfies UserEntity);
    await this.users.insert(user, manager);
    return toUserView(user);
  }
}
