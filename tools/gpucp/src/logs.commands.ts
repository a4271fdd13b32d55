import type { Command } from 'commander';
import type { PodLogLine, PodLogPage } from '@app/contracts';
import { contextOf, integer, type Context } from './context.js';

interface LogsOptions {
  follow?: boolean;
  tail?: number;
  since?: string;
  endpoint?: string;
}

/**
 * `gpucp logs <podId>`: a pod's (or, with --endpoint, a serverless worker's) stdout, stderr and system lines;
 * `--follow` keeps the server-sent event stream open and prints lines as they come until the pod is gone or
 * Ctrl-C. `--json` prints one JSON line per log line.
 */
export function logsCommand(program: Command): void {
  program
    .command('logs <podId>')
    .description("a pod's or a worker's log lines; --follow streams new ones")
    .option('-f, --follow', 'keep streaming new lines')
    .option('--tail <n>', 'the last n stored lines', integer)
    .option('--since <time>', 'from an RFC 3339 time or a number of seconds back')
    .option('--endpoint <endpointId>', 'the pod is a worker of this serverless endpoint')
    .action(async (podId: string, options: LogsOptions, command: Command) => {
      const ctx = contextOf(command);
      const base = options.endpoint
        ? `/v2/serverless/${options.endpoint}/workers/${podId}/logs`
        : `/v2/pods/${podId}/logs`;
      const query = new URLSearchParams();
      if (options.tail !== undefined) query.set('tail', String(options.tail));
      if (options.since) query.set('since', options.since);
      if (options.follow) query.set('follow', 'true');
      const path = `${base}${query.size ? `?${query.toString()}` : ''}`;
      if (!options.follow) {
        const page = await ctx.api.get<PodLogPage>(path);
        for (const line of page.lines) print(ctx, line);
        return;
      }
      await follow(ctx, path);
    });
}

async function follow(ctx: Context, path: string): Promise<void> {
  const response = await ctx.api.stream(path);
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) print(ctx, JSON.parse(data) as PodLogLine);
    }
  }
}

function print(ctx: Context, line: PodLogLine): void {
  if (ctx.output.json) process.stdout.write(`${JSON.stringify(line)}\n`);
  else process.stdout.write(`${line.time} ${line.stream.padEnd(6)} ${line.line}\n`);
}
