import type { Type } from '@nestjs/common';
import { Subjects, type CommandPayload } from '@app/contracts';
import type { CommandContext } from '@app/messaging';
import { AddMemberHandler } from './add-member/add-member.handler.js';
import { CreateKeyHandler } from './create-key/create-key.handler.js';
import { CreateTeamHandler } from './create-team/create-team.handler.js';
import { CreateUserHandler } from './create-user/create-user.handler.js';
import { DeleteTeamHandler } from './delete-team/delete-team.handler.js';
import { DeleteUserHandler } from './delete-user/delete-user.handler.js';
import { RemoveMemberHandler } from './remove-member/remove-member.handler.js';
import { RenameTeamHandler } from './rename-team/rename-team.handler.js';
import { RevokeKeysHandler } from './revoke-keys/revoke-keys.handler.js';
import { SetMemberRoleHandler } from './set-member-role/set-member-role.handler.js';
import { UpdateUserHandler } from './update-user/update-user.handler.js';

/** The account commands (not its events). */
type AccountSubject = Extract<
  (typeof Subjects.account)[keyof typeof Subjects.account],
  `account.cmd.${string}`
>;

/** A handler of an account command: the method `@CommandHandler` marks is `handle`. */
export interface AccountHandler<S extends AccountSubject = AccountSubject> {
  handle(ctx: CommandContext<CommandPayload<S>>): Promise<unknown>;
}

/**
 * The handler of every account command, by subject: the gateway's consumers find them by their decorators; the keys
 * CLI, which applies its commands itself, looks them up here (cli/local-account-commands.ts).
 */
export const ACCOUNT_HANDLERS: { [S in AccountSubject]: Type<AccountHandler<S>> } = {
  [Subjects.account.createUser]: CreateUserHandler,
  [Subjects.account.updateUser]: UpdateUserHandler,
  [Subjects.account.deleteUser]: DeleteUserHandler,
  [Subjects.account.createKey]: CreateKeyHandler,
  [Subjects.account.revokeKeys]: RevokeKeysHandler,
  [Subjects.account.createTeam]: CreateTeamHandler,
  [Subjects.account.renameTeam]: RenameTeamHandler,
  [Subjects.account.deleteTeam]: DeleteTeamHandler,
  [Subjects.account.addMember]: AddMemberHandler,
  [Subjects.account.setMemberRole]: SetMemberRoleHandler,
  [Subjects.account.removeMember]: RemoveMemberHandler,
};

export function isAccountSubject(subject: string): subject is AccountSubject {
  return Object.prototype.hasOwnProperty.call(ACCOUNT_HANDLERS, subject);
}
