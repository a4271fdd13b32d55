import { DomainError, ErrorCode, Subjects, type Actor, type SpendStatus } from '@app/contracts';
import type { BaseConfig } from '@app/config';
import { CommandBus, QueryBus, type NatsClient } from '@app/messaging';
import type { AccountsService } from '../accounts/accounts.service.js';

/**
 * `npm run keys -- spend …`: the operator's monthly spend cap per user (docs/adr/0023-spend-limits.md). The limits
 * live with pod-lifecycle, which meters usage, so the CLI issues the recorded command `spend.cmd.set-limit` as a
 * system actor (replayable like any other) and reads `spend.qry.status`; NATS and pod-lifecycle must be up.
 */
export async function runSpendCommand(
  action: string | undefined,
  user: string | undefined,
  options: { monthly?: string; json: boolean },
  deps: {
    nats: NatsClient | null;
    config: BaseConfig;
    accounts: AccountsService;
    out: (line: string) => void;
  },
): Promise<number | null> {
  if (!user || !['set', 'clear', 'show'].includes(action ?? '')) return null;
  if (!deps.nats) {
    throw new DomainError(
      ErrorCode.DependencyUnavailable,
      `NATS (${deps.config.NATS_URL}) unreachable: spend limits are kept by pod-lifecycle, over NATS`,
    );
  }
  // A user's or a team's account: spend limits are an account's.
  const found = await deps.accounts.findAccount(user);
  if (!found) throw DomainError.notFound('user or team', user);
  const actor: Actor = { userId: found.id, kind: 'system' };
  const queries = new QueryBus(deps.nats, deps.config);
  if (action !== 'show') {
    const monthlyLimit = action === 'clear' ? null : parseLimit(options.monthly);
    const commands = new CommandBus(deps.nats, queries, deps.config);
    try {
      await commands.execute(
        Subjects.spend.setLimit,
        { userId: found.id, setBy: 'operator', monthlyLimit },
        actor,
      );
    } finally {
      commands.onApplicationShutdown();
    }
  }
  const status = await queries.query(Subjects.spend.status, {}, actor);
  deps.out(options.json ? JSON.stringify(status) : describe(found.name, status));
  return 0;
}

function parseLimit(value: string | undefined): number {
  const limit = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(limit) || limit < 0) {
    throw new DomainError(ErrorCode.ValidationFailed, '--monthly takes an amount ≥ 0, e.g. --monthly 250');
  }
  return limit;
}

function describe(name: string, status: SpendStatus): string {
  const show = (n: number | null) => (n === null ? '-' : String(n));
  return [
    `${status.userId}\t${name}`,
    `cap=${show(status.operatorLimit)}`,
    `own=${show(status.userLimit)}`,
    `limit=${show(status.monthlyLimit)}`,
    `spent=${status.spend} (${status.month})`,
    status.reached ? 'REACHED: new GPU work refused' : 'under the limit',
  ].join('\t');
}
