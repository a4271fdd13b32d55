import type { Command } from 'commander';
import type { AuditEntry, AuditPage } from '@app/contracts';
import { contextOf, integer } from './context.js';
import { printJson, printTable } from './output.js';

interface AuditOptions {
  from?: string;
  to?: string;
  actor?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  account?: string;
  cursor?: string;
  limit?: number;
  all?: boolean;
}

/** The query of `GET /v2/audit` from the options (the gateway checks them and names a bad one). */
export function auditQuery(options: AuditOptions, cursor?: string): string {
  const query = new URLSearchParams();
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined) query.set(name, String(value));
  };
  set('from', options.from);
  set('to', options.to);
  set('actor', options.actor);
  set('action', options.action);
  set('resourceType', options.resourceType);
  set('resourceId', options.resourceId);
  set('accountId', options.account);
  set('limit', options.limit);
  set('cursor', cursor ?? options.cursor);
  const text = query.toString();
  return text ? `/v2/audit?${text}` : '/v2/audit';
}

function outcomeOf(entry: AuditEntry): string {
  return entry.outcome.ok ? 'ok' : `${entry.outcome.code}: ${entry.outcome.message}`;
}

/**
 * `gpucp audit`: the account's audit trail (/v2/audit), newest first, with the route's filters; `--all` follows the
 * cursors to the end. A table, or with --json the page itself ({entries, nextCursor}; with --all every entry).
 */
export function auditCommand(program: Command): void {
  program
    .command('audit')
    .description("the account's audit trail, newest first (/v2/audit)")
    .option('--from <time>', 'entries at or after this time (RFC 3339)')
    .option('--to <time>', 'entries before this time (RFC 3339)')
    .option('--actor <userId>', "this person's entries")
    .option('--action <action>', 'this action, e.g. pod.create, team.add-member')
    .option('--resource-type <type>', 'pod, cluster, endpoint, volume, template, team, worker, ...')
    .option('--resource-id <id>', "this resource's entries")
    .option('--account <accountId>', "an operator's key: this account's entries only")
    .option('--limit <n>', 'entries per page (1-500; default 50)', integer)
    .option('--cursor <cursor>', 'the page after the one that answered this nextCursor')
    .option('--all', 'every page, following the cursors')
    .action(async (options: AuditOptions, command: Command) => {
      const ctx = contextOf(command);
      const entries: AuditEntry[] = [];
      let page = await ctx.api.get<AuditPage>(auditQuery(options));
      entries.push(...page.entries);
      while (options.all && page.nextCursor) {
        page = await ctx.api.get<AuditPage>(auditQuery(options, page.nextCursor));
        entries.push(...page.entries);
      }
      if (ctx.output.json) {
        return printJson(options.all ? { entries, nextCursor: null } : page);
      }
      printTable(ctx.output, entries, [
        ['AT', (e) => e.at],
        ['ACCOUNT', (e) => e.accountId],
        [
          'ACTOR',
          (e) =>
            e.actor.kind === 'system' ? `system (${e.actor.reason ?? e.actor.userId})` : e.actor.userId,
        ],
        ['ACTION', (e) => e.action],
        ['RESOURCE', (e) => `${e.resourceType}${e.resourceId ? ` ${e.resourceId}` : ''}`],
        ['OUTCOME', outcomeOf],
      ]);
      if (!options.all && page.nextCursor) process.stdout.write(`more: --cursor ${page.nextCursor}\n`);
    });
}
