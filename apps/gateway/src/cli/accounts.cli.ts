import { DomainError, ErrorCode, isApiKeyScope, API_KEY_SCOPES, type ApiKeyScope } from '@app/contracts';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { ApiKeyEntity } from '../accounts/api-key.entity.js';
import type { UserEntity } from '../accounts/user.entity.js';

export interface AccountsCliOptions {
  json: boolean;
  exempt: boolean;
  off: boolean;
  scope: string;
  endpoints: string;
  name: string;
  team?: string;
}

/** A value the CLI refuses, named with what it takes instead (exit 2). */
export class UsageError extends Error {}

function scopeOf(value: string): ApiKeyScope {
  if (!isApiKeyScope(value)) {
    throw new UsageError(`unknown scope '${value}': one of ${API_KEY_SCOPES.join(', ')}`);
  }
  return value;
}

function userLine(u: UserEntity): string {
  const flags = [u.rateLimitExempt ? 'exempt' : '', u.disabledAt ? 'disabled' : ''].filter(Boolean);
  return [u.id, u.name, u.createdAt.toISOString(), ...flags].join('\t');
}

/**
 * `user …` and `key …` of `npm run keys`: each change an `account.cmd.*` recorded in the deployment's commands
 * stream and applied as the gateway applies it (cli/local-account-commands.ts). Null: not one of these.
 */
export async function runAccountsCommand(
  command: string,
  arg: string | undefined,
  options: AccountsCliOptions,
  accounts: AccountsService,
  out: (line: string) => void,
  liveResources: (accountId: string) => Promise<string[]>,
): Promise<number | null> {
  const need = (what: string): string => {
    if (!arg) throw new UsageError(`${command}: name the ${what}`);
    return arg;
  };
  switch (command) {
    case 'user create': {
      const user = await accounts.createUser(need('new user'), options.exempt);
      out(`${user.id}\t${user.name}${user.rateLimitExempt ? '\t(rate-limit exempt)' : ''}`);
      return 0;
    }
    case 'user list':
      for (const user of await accounts.listUsers()) out(userLine(user));
      return 0;
    case 'user exempt': {
      const user = await accounts.updateUser(need('user'), { rateLimitExempt: !options.off });
      out(`${user.id}\t${user.name}\t${user.rateLimitExempt ? 'rate-limit exempt' : 'rate-limited'}`);
      return 0;
    }
    case 'user disable': {
      const user = await accounts.updateUser(need('user'), { disabled: !options.off });
      out(`${user.id}\t${user.name}\t${user.disabled ? 'disabled: its keys are refused' : 'enabled'}`);
      return 0;
    }
    case 'user delete': {
      const user = await accounts.findUser(need('user'));
      if (!user) throw DomainError.notFound('user', arg!);
      const live = await liveResources(user.id);
      if (live.length) {
        throw new DomainError(
          ErrorCode.InUse,
          `user ${user.name}'s account still owns ${live.join(', ')}: terminate or delete them first`,
        );
      }
      const { revoked } = await accounts.deleteUser(user.id);
      out(`deleted ${arg}; ${revoked.length} key(s) revoked`);
      return 0;
    }
    case 'key create': {
      const endpointIds = options.endpoints.split(',').filter(Boolean);
      const issued = await accounts.createKey(
        need('user'),
        scopeOf(options.scope),
        options.name,
        endpointIds,
        {
          teamId: options.team ? await teamId(accounts, options.team) : undefined,
        },
      );
      const { record } = issued;
      out(
        options.json
          ? JSON.stringify({
              key: issued.key,
              id: record.id,
              userId: record.userId,
              accountId: record.accountId,
            })
          : `${record.id}\t${issued.key}\t(shown once)`,
      );
      return 0;
    }
    case 'key list': {
      const user = arg ? await accounts.findUser(arg) : null;
      if (arg && !user) throw DomainError.notFound('user', arg);
      const names = new Map((await accounts.listUsers()).map((u) => [u.id, u.name]));
      const keys = await accounts.listKeys(user ? { userId: user.id } : {});
      for (const key of keys) out(keyLine(key, names));
      return 0;
    }
    case 'key revoke':
      await accounts.revokeKey(need('key id'));
      out(`revoked ${arg}`);
      return 0;
    default:
      return null;
  }
}

async function teamId(accounts: AccountsService, team: string): Promise<string> {
  const found = await accounts.findTeam(team);
  if (!found) throw new DomainError(ErrorCode.NotFound, `team ${team} does not exist`);
  return found.id;
}

function keyLine(k: ApiKeyEntity, names: Map<string, string>): string {
  const scope = k.scope === 'endpoints' ? `endpoints:${k.endpointIds.join(',')}` : k.scope;
  const account = k.accountId === k.userId ? 'own' : `team:${k.accountId}`;
  const holder = names.get(k.userId) ?? k.userId;
  return [k.id, holder, account, k.name, `${k.keyPrefix}…`, scope, k.revokedAt ? 'revoked' : 'active'].join(
    '\t',
  );
}
