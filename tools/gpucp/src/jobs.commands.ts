import type { Command } from 'commander';
import { ApiError } from './api-client.js';
import { contextOf, integer, seconds } from './context.js';
import { printRecord } from './output.js';
import { waitFor } from './progress.js';

interface JobView {
  id: string;
  status: string;
  output?: unknown;
  error?: unknown;
}

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

export function jobsCommand(program: Command): void {
  const jobs = program
    .command('jobs')
    .description("an endpoint's jobs (/v2/{endpointId}/run, /status, /cancel)");

  jobs
    .command('run <endpointId>')
    .description('submit a job; --wait follows it until it finishes')
    .option('--input <json>', 'the job input, JSON', '{}')
    .option('--wait', 'wait for its result, showing its status')
    .option('--timeout <seconds>', 'how long --wait waits', integer, 600)
    .action(async (endpointId: string, options: RunOptions, command: Command) => {
      const ctx = contextOf(command);
      const accepted = await ctx.api.post<JobView>(`/v2/${endpointId}/run`, {
        input: parseInput(options.input),
      });
      if (!options.wait) return printRecord(ctx.output, accepted);
      const job = await waitFor(
        ctx.progress(`job ${accepted.id}`),
        async () => {
          const job = await ctx.api.get<JobView>(`/v2/${endpointId}/status/${accepted.id}`);
          return { state: job.status, value: FINAL.has(job.status) ? job : undefined };
        },
        { timeoutMs: seconds(options.timeout), intervalMs: 500 },
      );
      printRecord(ctx.output, job);
      if (job.status !== 'COMPLETED') process.exitCode = 1;
    });

  jobs
    .command('status <endpointId> <jobId>')
    .description("a job's status and output")
    .action(async (endpointId: string, jobId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printRecord(ctx.output, await ctx.api.get<JobView>(`/v2/${endpointId}/status/${jobId}`));
    });

  jobs
    .command('cancel <endpointId> <jobId>')
    .description('cancel a job')
    .action(async (endpointId: string, jobId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printRecord(ctx.output, await ctx.api.post<JobView>(`/v2/${endpointId}/cancel/${jobId}`));
    });
}

interface RunOptions {
  input: string;
  wait?: boolean;
  timeout: number;
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(`--input is not JSON: ${text}`, 2);
  }
}
