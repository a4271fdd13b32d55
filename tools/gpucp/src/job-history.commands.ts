import type { Command } from 'commander';
import type { JobDetail, JobPage, JobSummaryView } from '@app/contracts';
import { ApiError } from './api-client.js';
import { contextOf, integer } from './context.js';
import { printJson, printRecord, printTable } from './output.js';

/** Rows a page of the API holds at most: a larger --limit follows the cursor. */
const PAGE_MAX = 100;
const UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const JOB_COLUMNS: [string, (job: JobSummaryView) => unknown][] = [
  ['ID', (j) => j.id],
  ['STATUS', (j) => j.status],
  ['CREATED', (j) => j.createdAt],
  ['DELAY_MS', (j) => j.delayTime],
  ['EXEC_MS', (j) => j.executionTime],
  ['WORKER', (j) => j.workerId],
  [
    'INPUT',
    (j) =>
      j.input ? `${j.input.preview.slice(0, 40)}${j.input.truncated ? '…' : ''}` : `(${j.inputBytes} B)`,
  ],
];

interface ListOptions {
  status?: string;
  since?: string;
  limit: number;
}

/**
 * `gpucp jobs list <endpointId>` (an endpoint's jobs, newest first: GET /v2/serverless/{id}/jobs) and
 * `gpucp job <endpointId> <jobId>` (one job whole, `--logs` with its worker's lines around it).
 */
export function jobHistoryCommands(program: Command): void {
  const jobs = program.commands.find((c) => c.name() === 'jobs') ?? program.command('jobs');
  jobs
    .command('list <endpointId>')
    .description("an endpoint's jobs, newest first (kept after their results expire, without payloads)")
    .option('--status <statuses>', 'only these statuses, comma-separated (e.g. FAILED,TIMED_OUT)')
    .option('--since <when>', 'created since: an ISO 8601 time or a duration back (30m, 2h, 7d)')
    .option('--limit <n>', 'how many jobs at most (1-1000)', integer, 20)
    .action(async (endpointId: string, options: ListOptions, command: Command) => {
      const ctx = contextOf(command);
      if (options.limit < 1 || options.limit > 1000) throw new ApiError('--limit must be from 1 to 1000', 2);
      const query = new URLSearchParams();
      if (options.status) query.set('status', options.status);
      if (options.since) query.set('from', sinceTime(options.since));
      const rows: JobSummaryView[] = [];
      let cursor: string | null = null;
      do {
        query.set('limit', String(Math.min(PAGE_MAX, options.limit - rows.length)));
        if (cursor) query.set('cursor', cursor);
        const page: JobPage = await ctx.api.get<JobPage>(
          `/v2/serverless/${endpointId}/jobs?${query.toString()}`,
        );
        rows.push(...page.jobs);
        cursor = page.next;
      } while (cursor && rows.length < options.limit);
      printTable(ctx.output, rows, JOB_COLUMNS);
    });

  program
    .command('job <endpointId> <jobId>')
    .description('one job: input, output or error, phases, leases; --logs adds its worker’s lines around it')
    .option('--logs', "print the worker's log lines from just before the job started to just after it ended")
    .action(async (endpointId: string, jobId: string, options: { logs?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const job = await ctx.api.get<JobDetail>(`/v2/serverless/${endpointId}/jobs/${jobId}`);
      if (ctx.output.json) return printJson(options.logs ? job : { ...job, logs: undefined });
      const { logs, ...record } = job;
      printRecord(ctx.output, record);
      if (!options.logs) return;
      process.stdout.write(
        `logs (${logs ? `${logs.podId}, ${logs.from} to ${logs.to}` : 'the job never ran'}):\n`,
      );
      for (const line of logs?.lines ?? []) {
        process.stdout.write(`${line.time} ${line.stream} ${line.line}\n`);
      }
      if (logs?.truncated) process.stdout.write('… more lines in the window: gpucp logs shows them all\n');
    });
}

/** `--since`: an ISO time as given, or a duration back from now (`90s`, `30m`, `2h`, `7d`). */
export function sinceTime(value: string, now = Date.now()): string {
  const duration = /^(\d+)([smhd])$/.exec(value);
  if (duration) return new Date(now - Number(duration[1]) * UNITS_MS[duration[2]]).toISOString();
  if (!Number.isNaN(Date.parse(value))) return value;
  throw new ApiError(`--since must be an ISO 8601 time or a duration like 30m, 2h, 7d; got "${value}"`, 2);
}
