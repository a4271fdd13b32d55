import { Option, type Command } from 'commander';
import type { ApiKeyList, ApiKeyView, CreatedApiKey } from '@app/contracts';
import { collect, contextOf } from './context.js';
import { printJson, printMessage, printRecord, printTable } from './output.js';

export function keysCommand(program: Command): void {
  const keys = program
    .command('keys')
    .description("your account's API keys (/v2/account/api-keys): the secrets are never listed");

  keys
    .command('list')
    .description('your keys; * marks the one this command uses')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api.get<ApiKeyList>('/v2/account/api-keys');
      if (ctx.output.json) return printJson(list);
      printTable(ctx.output, list.apiKeys, [
        ['', (k: ApiKeyView) => (k.id === list.current.id ? '*' : '')],
        ['ID', (k) => k.id],
        ['NAME', (k) => k.name],
        ['PREFIX', (k) => k.prefix],
        ['SCOPE', (k) => k.scope],
        ['ENDPOINTS', (k) => (k.endpointIds.length ? k.endpointIds.join(',') : null)],
        ['TEAM', (k) => k.teamId],
        ['CREATED', (k) => k.createdAt],
      ]);
    });

  keys
    .command('create')
    .description('create a key; its secret is printed this once only')
    .requiredOption('--name <name>', 'its name, to recognise it')
    .addOption(
      new Option(
        '--scope <scope>',
        'full: everything; read: reads only; endpoints: the job routes of --endpoint',
      )
        .choices(['full', 'read', 'endpoints'])
        .makeOptionMandatory(),
    )
    .option(
      '--endpoint <endpointId>',
      'an endpoint whose jobs the key may run (scope endpoints; repeatable)',
      collect,
    )
    .option('--team <teamId>', 'a team of yours the key acts for (default: the account of the key you use)')
    .action(async (options: CreateKeyOptions, command: Command) => {
      const ctx = contextOf(command);
      const created = await ctx.api.post<CreatedApiKey>('/v2/account/api-keys', {
        name: options.name,
        scope: options.scope,
        ...(options.endpoint ? { endpointIds: options.endpoint } : {}),
        ...(options.team ? { teamId: options.team } : {}),
      });
      if (ctx.output.json) return printJson(created);
      const { key, ...view } = created;
      printRecord(ctx.output, view);
      // The secret last and apart, so it is not missed: no later answer contains it.
      process.stdout.write(
        `\nAPI key (shown this once only; store it now, it cannot be read again):\n${key}\n`,
      );
    });

  keys
    .command('revoke <keyId>')
    .description('revoke a key: every request with it is refused at once')
    .action(async (keyId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete(`/v2/account/api-keys/${encodeURIComponent(keyId)}`);
      printMessage(ctx.output, `revoked ${keyId}`, { id: keyId, revoked: true });
    });
}

interface CreateKeyOptions {
  name: string;
  scope: string;
  endpoint?: string[];
  team?: string;
}
