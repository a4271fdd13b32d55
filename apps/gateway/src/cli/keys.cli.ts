import 'reflect-metadata';
import { Global, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DomainError } from '@app/contracts';
import { BusConfig, ConfigModule, MigrationConfig } from '@app/config';
import { DatabaseModule } from '@app/database';
import { NatsClient, QueryBus, natsAuth } from '@app/messaging';
import { loadConfigOrExit } from '@app/platform';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { AccountCommands } from '../accounts/account-commands.js';
import { liveResourcesOf } from '../accounts/live-resources.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { GatewayConfig } from '../gateway.config.js';
import { RateLimitAdminModule } from '../rate-limit/rate-limit-admin.module.js';
import { parseQuotaArgument, RateLimitAdminService } from '../rate-limit/rate-limit-admin.service.js';
import { runAccountsCommand, UsageError } from './accounts.cli.js';
import { LocalAccountCommands } from './local-account-commands.js';
import { runSpendCommand } from './spend-limits.cli.js';

const USAGE = `usage: npm run keys -- <command> [options]

  bootstrap [--json]                        first run: create user "admin" with an operator key
  user create <name> [--exempt]             create a user (--exempt: no rate limits)
  user list                                 list users
  user exempt <user> [--off]                exempt a user from rate limits (--off: limit it again)
  user disable <user> [--off]               refuse the user's keys and sessions (--off: enable again)
  user delete <user>                        delete a user (refused while their account owns live resources
                                            or they are a team's last owner); their keys are revoked
  key create <user> [--scope full|read|endpoints|operator] [--team <team>] [--endpoints id,id]
             [--name text] [--json]         issue a key (shown once); --team: it acts for that team,
                                            within the user's role there; operator: every team and user
  key list [<user>]                         list keys by holder (never the keys themselves)
  key revoke <keyId>                        revoke a key (on every gateway replica within a second)
  limits set <user> [--policy rest] [--minute N|default] [--hour N|default] [--day N|default]
                                            override the user's quotas of one policy (effective at once)
  limits clear <user> [--policy name]       back to the defaults (every policy without --policy)
  limits list [<user>] [--json]             list quota overrides ('-': the configured default)
  spend set <user> --monthly N [--json]     cap the user's monthly spend (new GPU work refused with 402 once
                                            reached; the user may set a lower limit of their own)
  spend clear <user> [--json]               remove the cap (the user's own limit, if any, stays)
  spend show <user> [--json]                the cap, the user's own limit and this month's spend

  Users and keys are changed by recorded commands (account.cmd.*) in the deployment's commands stream: the CLI
  needs NATS (NATS_URL, NATS_PREFIX as the gateway's) and applies them itself, so no app has to run. A user
  delete asks the owner apps what the account owns: they must run. Spend limits are kept by pod-lifecycle:
  \`spend\` needs NATS and pod-lifecycle running.

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
    team: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

/** What only reads the database; everything else records commands (or, for spend, asks pod-lifecycle). */
const READS = new Set(['user list', 'key list', 'limits set', 'limits clear', 'limits list']);
const command = `${positionals[0] ?? ''} ${positionals[1] ?? ''}`.trim();
const nats = READS.has(command) || values.help || !positionals[0] ? null : await connectBus(bus);
if (!nats && !READS.has(command) && !values.help && positionals[0]) {
  process.stderr.write(
    `NATS (${bus.NATS_URL}) unreachable: the keys CLI records every change of users and keys in the ` +
      "deployment's commands stream\n",
  );
  process.exit(1);
}

@Global()
@Module({ providers: [{ provide: NatsClient, useValue: nats }], exports: [NatsClient] })
class CliBusModule {}

/** The CLI applies its account commands itself; the app context is there once Nest built it. */
let context: INestApplicationContext | null = null;
const commands = new (class extends AccountCommands {
  private local?: LocalAccountCommands;

  execute: AccountCommands['execute'] = (subject, payload, actor) => {
    if (!context || !nats) throw new Error('the keys CLI applies commands only once connected');
    this.local ??= LocalAccountCommands.of(context, nats);
    return this.local.execute(subject, payload, actor);
  };
})();

@Global()
@Module({ providers: [{ provide: AccountCommands, useValue: commands }], exports: [AccountCommands] })
class CliCommandsModule {}

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
      CliCommandsModule,
      DatabaseModule.forApp(DATA_SOURCE_SPEC, 'gateway-cli'),
      AccountsModule,
      RateLimitAdminModule,
    ],
  },
  { logger: false },
);
context = app;
const accounts = app.get(AccountsService);
const limits = app.get(RateLimitAdminService);
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
      const live = (accountId: string) =>
        liveResourcesOf(new QueryBus(nats!, app.get(GatewayConfig)), accountId);
      const done = await runAccountsCommand(command, arg, values, accounts, out, live);
      if (done !== null) return done;
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
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    code = 2;
  } else {
    process.stderr.write(`${error instanceof DomainError ? error.message : String(error)}\n`);
    code = 1;
  }
}
await app.close();
await nats?.drain();
process.exit(code);
