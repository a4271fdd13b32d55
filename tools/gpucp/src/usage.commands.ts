import type { Command } from 'commander';
import type { BillingSummaryList, SpendStatus } from '@app/contracts';
import { ApiError } from './api-client.js';
import { contextOf } from './context.js';
import { printRecord, printTable } from './output.js';

interface UsageOptions {
  bucket: string;
  start?: string;
  end?: string;
}

/** `gpucp usage`: what the account costs per bucket (/v2/billing), and its monthly spend limit. */
export function usageCommand(program: Command): void {
  const usage = program
    .command('usage')
    .description('costs per day or hour (/v2/billing), and your monthly spend limit')
    .option('--bucket <bucket>', 'day or hour', 'day')
    .option('--start <time>', 'from (ISO 8601; default 30 days ago)')
    .option('--end <time>', 'to (ISO 8601; default now)')
    .action(async (options: UsageOptions, command: Command) => {
      const ctx = contextOf(command);
      const query = new URLSearchParams({ bucketSize: options.bucket });
      if (options.start) query.set('startTime', options.start);
      if (options.end) query.set('endTime', options.end);
      const bill = await ctx.api.get<BillingSummaryList>(`/v2/billing?${query.toString()}`);
      if (ctx.output.json) return printRecord(ctx.output, bill);
      printTable(ctx.output, bill.records, [
        ['TIME', (r) => r.time],
        ['PODS', (r) => r.podAmount],
        ['SERVERLESS', (r) => r.serverlessAmount],
        ['CLUSTERS', (r) => r.clusterAmount],
        ['STORAGE', (r) => r.storageAmount],
        ['TOTAL', (r) => r.totalAmount],
      ]);
      process.stdout.write(
        `total ${bill.metadata.totalAmount} (${bill.metadata.startTime} .. ${bill.metadata.endTime})\n`,
      );
    });

  usage
    .command('limit [amount]')
    .description("this month's spend and your limits; with an amount (or 'none'), sets your own limit")
    .action(async (amount: string | undefined, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const status =
        amount === undefined
          ? await ctx.api.get<SpendStatus>('/v2/account/spend-limit')
          : await ctx.api.put<SpendStatus>('/v2/account/spend-limit', { monthlyLimit: parseAmount(amount) });
      printRecord(ctx.output, status);
    });
}

function parseAmount(text: string): number | null {
  if (text === 'none') return null;
  const amount = Number(text);
  if (!Number.isFinite(amount) || amount < 0) {
    throw new ApiError(`expected an amount ≥ 0 or 'none', got "${text}"`, 2);
  }
  return amount;
}
