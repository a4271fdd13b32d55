import type { Command } from 'commander';
import type { EndpointV2List, EndpointV2View, WorkerList } from '@app/contracts';
import { collect, contextOf, integer } from './context.js';
import { printMessage, printRecord, printTable } from './output.js';

const ENDPOINT_COLUMNS: [string, (endpoint: EndpointV2View) => unknown][] = [
  ['ID', (e) => e.id],
  ['NAME', (e) => e.name],
  ['TYPE', (e) => e.type],
  ['POOLS', (e) => e.gpu.pools.join(',')],
  ['WORKERS', (e) => `${e.workers.min}..${e.workers.max}`],
  ['TEMPLATE', (e) => e.templateId],
];

export function endpointsCommand(program: Command): void {
  const endpoints = program.command('endpoints').description('serverless endpoints (/v2/serverless)');

  endpoints
    .command('list')
    .description('your endpoints')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api.get<EndpointV2List>('/v2/serverless');
      printTable(ctx.output, list.endpoints, ENDPOINT_COLUMNS);
    });

  endpoints
    .command('get <endpointId>')
    .description('one endpoint')
    .action(async (endpointId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printRecord(ctx.output, await ctx.api.get<EndpointV2View>(`/v2/serverless/${endpointId}`));
    });

  endpoints
    .command('create')
    .description('create a queue endpoint from a serverless template')
    .requiredOption('--name <name>', 'its name')
    .requiredOption('--template <templateId>', 'a serverless template')
    .option('--pool <pool>', 'a GPU pool, e.g. AMPERE_16 (repeatable, in order of preference)', collect)
    .option('--min <n>', 'workers always running', integer, 0)
    .option('--max <n>', 'most workers', integer, 1)
    .option('--idle-timeout <seconds>', 'an idle worker is stopped after', integer, 5)
    .action(async (options: CreateEndpointOptions, command: Command) => {
      const ctx = contextOf(command);
      const created = await ctx.api.post<EndpointV2View>('/v2/serverless', {
        name: options.name,
        type: 'QUEUE',
        templateId: options.template,
        gpu: { pools: options.pool ?? ['AMPERE_16'], count: 1 },
        workers: { min: options.min, max: options.max, idleTimeout: options.idleTimeout },
      });
      printRecord(ctx.output, created);
    });

  endpoints
    .command('scale <endpointId>')
    .description('change the worker bounds')
    .requiredOption('--min <n>', 'workers always running', integer)
    .requiredOption('--max <n>', 'most workers', integer)
    .action(async (endpointId: string, options: { min: number; max: number }, command: Command) => {
      const ctx = contextOf(command);
      const body = { workers: { min: options.min, max: options.max } };
      printRecord(ctx.output, await ctx.api.patch<EndpointV2View>(`/v2/serverless/${endpointId}`, body));
    });

  endpoints
    .command('workers <endpointId>')
    .description("the endpoint's live workers: status, pod, current jobs, restarts, last ping")
    .action(async (endpointId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api.get<WorkerList>(`/v2/serverless/${endpointId}/workers`);
      if (ctx.output.json) return printRecord(ctx.output, list);
      printTable(ctx.output, list.workers, [
        ['ID', (w) => w.id],
        ['STATUS', (w) => w.status],
        ['POD', (w) => w.podStatus],
        ['JOBS', (w) => w.currentJobCount],
        ['RESTARTS', (w) => w.restarts],
        ['LAST SEEN', (w) => w.lastSeenAt],
        ['VERSION', (w) => w.version],
        ['UNHEALTHY', (w) => w.unhealthyReason],
      ]);
    });

  endpoints
    .command('delete <endpointId>')
    .description('delete an endpoint (scale it to 0..0 first)')
    .action(async (endpointId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete(`/v2/serverless/${endpointId}`);
      printMessage(ctx.output, `deleted ${endpointId}`, { id: endpointId, deleted: true });
    });
}

interface CreateEndpointOptions {
  name: string;
  template: string;
  pool?: string[];
  min: number;
  max: number;
  idleTimeout: number;
}
