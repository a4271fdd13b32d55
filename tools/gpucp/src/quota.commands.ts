import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { QuotaHistoryView, QuotaLimitView, QuotaListView, QuotaView } from '@app/contracts';
import { contextOf, integer, type Context } from './context.js';
import { printJson, printMessage, printTable } from './output.js';
import { quotaBody, type QuotaSetOptions } from './quota-body.js';

const LIMIT_COLUMNS: [string, (limit: QuotaLimitView) => unknown][] = [
  ['GPU TYPE', (l) => l.gpuTypeId],
  ['DATA CENTER', (l) => l.dataCenterId ?? 'any'],
  ['GPUS', (l) => l.gpus],
  ['BORROW', (l) => l.borrowingLimit ?? 'any'],
  ['IN USE', (l) => l.inUse],
  ['BORROWED', (l) => l.borrowed],
  ['LENT', (l) => l.lent],
];

/** Whose quota it is and where it comes from, then one row per limit with its use. */
function printQuota(ctx: Context, view: QuotaView): void {
  if (ctx.output.json) return printJson(view);
  const name = view.accountId === '*' ? 'default' : (view.accountName ?? view.accountId);
  process.stdout.write(
    `account: ${name} (${view.accountId})\nsource: ${view.source}\ncohort: ${view.cohort ?? '-'}\n` +
      `preempted: ${view.preempted.lastMinute} in the last minute, ${view.preempted.total} in all\n`,
  );
  if (view.limits.length === 0) {
    process.stdout.write('limits: none (unlimited)\n');
    return;
  }
  printTable(ctx.output, view.limits, LIMIT_COLUMNS);
}

function setOptions(command: Command): Command {
  return command
    .option('--gpu-type <gpuTypeId>', 'the GPU type of the one limit')
    .option('--gpus <n>', 'GPUs of that type the account may hold', integer)
    .option('--data-center <dataCenterId>', 'count only that data center (default: every one)')
    .option('--borrowing-limit <n>', "GPUs it may borrow beyond --gpus from its cohort's idle quota", integer)
    .option('--cohort <name>', 'teams of one cohort lend each other their idle quota')
    .option('--file <path>', 'the whole quota as JSON ({cohort, limits: [...]}) instead of the flags above');
}

const read = (path: string) => readFileSync(path, 'utf8');

/**
 * `gpucp quota`: team GPU quotas (/v2/teams/{id}/quota, /v2/quotas, /v2/account/quota). Every member reads their
 * team's; setting, clearing, listing and the default take an operator's key. `set` replaces the whole quota.
 */
export function quotaCommand(program: Command): void {
  const quota = program
    .command('quota')
    .description('GPU quotas of teams, and the default (operators set them)');

  quota
    .command('get')
    .description("a team's quota and its use; without --team, the key's own account's")
    .option('--team <teamId>', 'the team')
    .action(async (options: { team?: string }, command: Command) => {
      const ctx = contextOf(command);
      const path = options.team ? `/v2/teams/${encodeURIComponent(options.team)}/quota` : '/v2/account/quota';
      printQuota(ctx, await ctx.api.get<QuotaView>(path));
    });

  setOptions(
    quota
      .command('set')
      .description("set a team's whole quota, replacing the one before (operators)")
      .requiredOption('--team <teamId>', 'the team'),
  ).action(async (options: QuotaSetOptions & { team: string }, command: Command) => {
    const ctx = contextOf(command);
    const body = quotaBody(options, read);
    printQuota(
      ctx,
      await ctx.api.put<QuotaView>(`/v2/teams/${encodeURIComponent(options.team)}/quota`, body),
    );
  });

  quota
    .command('clear')
    .description("remove a team's own quota: the default applies to it again (operators)")
    .requiredOption('--team <teamId>', 'the team')
    .action(async (options: { team: string }, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete(`/v2/teams/${encodeURIComponent(options.team)}/quota`);
      printMessage(ctx.output, `cleared the quota of ${options.team}`, {
        teamId: options.team,
        cleared: true,
      });
    });

  quota
    .command('history')
    .description("a team's use of its quota, one sample per limit a minute")
    .requiredOption('--team <teamId>', 'the team')
    .option('--window <seconds>', 'how far back (60-604800; default 3600)', integer)
    .action(async (options: { team: string; window?: number }, command: Command) => {
      const ctx = contextOf(command);
      const query = options.window === undefined ? '' : `?windowSeconds=${options.window}`;
      const history = await ctx.api.get<QuotaHistoryView>(
        `/v2/teams/${encodeURIComponent(options.team)}/quota/history${query}`,
      );
      if (ctx.output.json) return printJson(history);
      printTable(ctx.output, history.samples, [
        ['AT', (s) => s.at],
        ['GPU TYPE', (s) => s.gpuTypeId],
        ['DATA CENTER', (s) => s.dataCenterId ?? 'any'],
        ['GPUS', (s) => s.gpus],
        ['IN USE', (s) => s.inUse],
        ['BORROWED', (s) => s.borrowed],
        ['LENT', (s) => s.lent],
      ]);
    });

  quota
    .command('list')
    .description("the default and every account's own quota, one row per limit (operators)")
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api.get<QuotaListView>('/v2/quotas');
      if (ctx.output.json) return printJson(list);
      const rows = [...(list.default ? [list.default] : []), ...list.quotas].flatMap((view) =>
        (view.limits.length ? view.limits : [null]).map((limit) => ({ view, limit })),
      );
      printTable(ctx.output, rows, [
        ['ACCOUNT', (r) => (r.view.accountId === '*' ? 'default' : (r.view.accountName ?? r.view.accountId))],
        ['COHORT', (r) => r.view.cohort],
        ...LIMIT_COLUMNS.map(([name, cell]): [string, (r: (typeof rows)[number]) => unknown] => [
          name,
          (r) => (r.limit ? cell(r.limit) : null),
        ]),
      ]);
    });

  defaultCommand(quota);
}

/** `gpucp quota default get|set|clear`: the quota of every account without its own (operators). */
function defaultCommand(quota: Command): void {
  const byDefault = quota
    .command('default')
    .description('the default quota: every account without its own (operators)');

  byDefault
    .command('get')
    .description('the default quota')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printQuota(ctx, await ctx.api.get<QuotaView>('/v2/quotas/default'));
    });

  setOptions(
    byDefault.command('set').description('set the whole default quota, replacing the one before'),
  ).action(async (options: QuotaSetOptions, command: Command) => {
    const ctx = contextOf(command);
    printQuota(ctx, await ctx.api.put<QuotaView>('/v2/quotas/default', quotaBody(options, read)));
  });

  byDefault
    .command('clear')
    .description('remove the default: accounts without their own quota are unlimited')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete('/v2/quotas/default');
      printMessage(ctx.output, 'cleared the default quota', { default: null });
    });
}
