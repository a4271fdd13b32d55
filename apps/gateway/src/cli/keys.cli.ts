import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { DomainError } from '@app/contracts';
import { BaseConfig, ConfigModule, MigrationConfig } from '@app/config';
import { DatabaseModule } from '@app/database';
import { loadConfigOrExit } from '@app/platform';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { isApiKeyScope } from '../accounts/api-key-scope.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';

const USAGE = `usage: npm run keys -- <command> [options]

  bootstrap [--json]                        first run: create user "admin" with a full-access key
  user create <name> [--exempt]             create a user (--exempt: no rate limits)
  user list                                 list users
  key create <user> [--scope full|read|endpoints] [--endpoints id,id] [--name text] [--json]
                                            issue a key (shown once)
  key list [<user>]                         list keys (never the keys themselves)
  key revoke <keyId>                        revoke a key (effective immediately)`;

@Module({})
class CliModule {}

const config = loadConfigOrExit(MigrationConfig);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    exempt: { type: 'boolean', default: false },
    scope: { type: 'string', default: 'full' },
    endpoints: { type: 'string', default: '' },
    name: { type: 'string', default: 'default' },
    help: { type: 'boolean', default: false },
  },
});

const app = await NestFactory.createApplicationContext(
  {
    module: CliModule,
    imports: [
      ConfigModule.forRoot(BaseConfig, Object.assign(new BaseConfig(), config, { DATABASE_POOL_SIZE: 2 })),
      DatabaseModule.forApp(DATA_SOURCE_SPEC, 'gateway-cli'),
      AccountsModule,
    ],
  },
  { logger: false },
);
const accounts = app.get(AccountsService);
const out = (line: string): boolean => process.stdout.write(`${line}\n`);
const [group, action, arg] = positionals;

async function main(): Promise<number> {
  if (values.help || !group) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'bootstrap': {
      const issued = await accounts.bootstrap();
      if (values.json) {
        out(
          JSON.stringify(
            issued ? { created: true, key: issued.key, userId: issued.record.userId } : { created: false },
          ),
        );
      } else {
        out(
          issued
            ? `created user admin with key ${issued.key} (shown once)`
            : 'users exist already; nothing done',
        );
      }
      return 0;
    }
    case 'user create': {
      if (!action || !arg) return usage();
      const user = await accounts.createUser(arg, values.exempt);
      out(`${user.id}\t${user.name}${user.rateLimitExempt ? '\t(rate-limit exempt)' : ''}`);
      return 0;
    }
    case 'user list':
      for (const u of await accounts.listUsers()) {
        out(`${u.id}\t${u.name}\t${u.createdAt.toISOString()}${u.rateLimitExempt ? '\texempt' : ''}`);
      }
      return 0;
    case 'key create': {
      if (!arg || !isApiKeyScope(values.scope)) return usage();
      const endpointIds = values.endpoints.split(',').filter(Boolean);
      const issued = await accounts.createKey(arg, values.scope, values.name, endpointIds);
      out(
        values.json
          ? JSON.stringify({ key: issued.key, id: issued.record.id, userId: issued.record.userId })
          : `${issued.record.id}\t${issued.key}\t(shown once)`,
      );
      return 0;
    }
    case 'key list':
      for (const k of await accounts.listKeys(arg)) {
        const scope = k.scope === 'endpoints' ? `endpoints:${k.endpointIds.join(',')}` : k.scope;
        out(
          `${k.id}\t${k.userId}\t${k.name}\t${k.keyPrefix}…\t${scope}\t${k.revokedAt ? 'revoked' : 'active'}`,
        );
      }
      return 0;
    case 'key revoke':
      if (!arg) return usage();
      await accounts.revokeKey(arg);
      out(`revoked ${arg}`);
      return 0;
    default:
      return usage();
  }
}

function usage(): number {
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

let code: number;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`${error instanceof DomainError ? error.message : String(error)}\n`);
  code = 1;
}
await app.close();
process.exit(code);
