import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DomainError } from '@app/contracts';
import { BusConfig, ConfigModule, MigrationConfig } from '@app/config';
import { DatabaseModule } from '@app/database';
import { NatsClient, natsAuth } from '@app/messaging';
import { loadConfigOrExit } from '@app/platform';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { isApiKeyScope } from '../accounts/api-key-scope.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { GatewayConfig } from '../gateway.config.js';
import { RateLimitAdminModule } from '../rate-limit/rate-limit-admin.module.js';
import { parseQuotaArgument, RateLimitAdminService } from '../rate-limit/rate-limit-admin.service.js';
import { runSpendCommand } from './spend-limits.cli.js';

const USAGE = `usage: npm run keys -- <command> [options]

  bootstrap [--json]                        first run: create user "admin" with a full-access key
  user create <name> [--exempt]             create a user (--exempt: no rate limits)
  user list                                 list users
  user exempt <user> [--off]                exempt a user from rate limits (--off: limit it again)
  key create <user> [--scope full|read|endpoints] [--endpoints id,id] [--name text] [--json]
                                            issue a key (shown once)
  key list [<user>]                         list keys (never the keys themselves)
  key revoke <keyId>                        revoke a key (on every gateway replica within a second)
  limits set <user> [--policy rest] [--minute N|default] [--hour N|default] [--day N|default]
                                            override the user's quotas of one policy (effective at once)
  limits clear <user> [--policy name]       back to the defaults (every policy without --policy)
  limits list [<user>] [--json]             list quota overrides ('-': the configured default)
  spend set <user> --monthly N [--json]     cap the user's monthly spend (new GPU work refused with 402 once
                                            reached; the user may set a lower limit of their own)
  spend clear <user> [--json]               remove the cap (the user's own limit, if any, stays)
  spend show <user> [--json]                the cap, the user's own limit and this month's spend

  Spend limits are kept by pod-lifecycle: \`spend\` needs NATS and pod-lifecycle running.
  Revocations and exemptions are announced to the gateways over NATS (NATS_URL, NATS_PREFIX as the gateway's);
  without NATS they take effect once a gateway's cached entry expires (AUTH_CACHE_TTL_MS).

  policies: rest, queue.run, queue.runsync, queue.status, queue.stream, queue.cancel, queue.purge-queue, lb`;

@Module({})
class CliModule {}

/** How long the CLI tries to reach NATS before it goes on without (the database change is what counts). */
const NATS_CONNECT_TIMEOUT_MS = 3000;

/** The CLI's own bus connection, to announce revocations and exemption changes to the gateways; null without. */
async function connectBus(bus: BusConfig): Promise<NatsClient | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), NATS_CONNECT_TIMEOUT_MS);
  });
  const connecting = NatsClient.connect(
    bus.NATS_URL,
    bus.NATS_PREFIX,
    'gateway-keys-cli',
    natsAuth(bus),
  ).catch(() => null);
  const nats = await Promise.race([connecting, timeout]);
  clearTimeout(timer);
  // Connected after all, too late: close it so the process can exit.
  if (!nats) void connecting.then((late) => late?.drain());
  return nats;
}

/** Unknown options and missing values end the command with the usage, not a stack trace. */
function parseArgsOrExit<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
}

const config = loadConfigOrExit(MigrationConfig);
const bus = loadConfigOrExit(BusConfig);
const { values, positionals } = parseArgsOrExit({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    exempt: { type: 'boolean', default: false },
    scope: { type: 'string', default: 'full' },
    endpoints: { type: 'string', default: '' },
    name: { type: 'string', default: 'default' },
    off: { type: 'boolean', default: false },
    policy: { type: 'string' },
    minute: { type: 'string' },
    hour: { type: 'string' },
    day: { type: 'string' },
    monthly: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

const CHANGES = new Set(['key revoke', 'user exempt']);
const nats =
  CHANGES.has(`${positionals[0]} ${positionals[1]}`) || positionals[0] === 'spend'
    ? await connectBus(bus)
    : null;

@Global()
@Module({ providers: [{ provide: NatsClient, useValue: nats }], exports: [NatsClient] })
class CliBusModule {}

const app = await NestFactory.createApplicationContext(
  {
    module: CliModule,
    imports: [
      // The gateway's defaults (e.g. the auth cache's) with the CLI's database and bus; nothing else is read.
      ConfigModule.forRoot(
        GatewayConfig,
        Object.assign(new GatewayConfig(), bus, config, { DATABASE_POOL_SIZE: 2 }),
      ),
      CliBusModule,
      DatabaseModule.forApp(DATA_SOURCE_SPEC, 'gateway-cli'),
      AccountsModule,
      RateLimitAdminModule,
    ],
  },
  { logger: false },
);
const accounts = app.get(AccountsService);
const limits = app.get(RateLimitAdminService);
const out = (line: string): boolean => process.stdout.write(`${line}\n`);
const [group, action, arg] = positionals;

async function main(): Promise<number> {
  if (CHANGES.has(`${group} ${action}`) && !nats) {
    process.stderr.write(
      `warning: NATS (${bus.NATS_URL}) unreachable: the gateways will see this change only once their cached ` +
        'entry expires (AUTH_CACHE_TTL_MS)\n',
    );
  }
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
    case 'user exempt': {
      if (!arg) return usage();
      const user = await accounts.setRateLimitExempt(arg, !values.off);
      out(`${user.id}\t${user.name}\t${user.rateLimitExempt ? 'rate-limit exempt' : 'rate-limited'}`);
      return 0;
    }
    case 'limits set': {
      if (!arg) return usage();
      const changes = {
        minute: parseQuotaArgument('minute', values.minute),
        hour: parseQuotaArgument('hour', values.hour),
        day: parseQuotaArgument('day', values.day),
      };
      const set = await limits.setQuotas(arg, values.policy ?? 'rest', changes);
      const show = (n: number | null) => (n === null ? '-' : String(n));
      out(
        `${set.userId}\t${set.policy}\tminute=${show(set.minute)}\thour=${show(set.hour)}\tday=${show(set.day)}`,
      );
      return 0;
    }
    case 'limits clear':
      if (!arg) return usage();
      out(`removed ${await limits.clear(arg, values.policy)} override(s)`);
      return 0;
    case 'limits list': {
      const overrides = await limits.list(arg);
      const show = (n: number | null) => (n === null ? '-' : String(n));
      if (values.json) out(JSON.stringify(overrides));
      else {
        for (const o of overrides) {
          out(`${o.userId}\t${o.policy}\tminute=${show(o.minute)}\thour=${show(o.hour)}\tday=${show(o.day)}`);
        }
      }
      return 0;
    }
    default: {
      if (group !== 'spend') return usage();
      const gatewayConfig = app.get(GatewayConfig);
      const deps = { nats, config: gatewayConfig, accounts, out };
      return (await runSpendCommand(action, arg, values, deps)) ?? usage();
    }
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
await nats?.drain();
process.exit(code);
