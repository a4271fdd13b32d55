import type { Command } from 'commander';
import type { FleetCapacityView, HostDetailView, HostListView, HostView } from '@app/contracts';
import { ApiError } from './api-client.js';
import { contextOf, integer, seconds, type Context } from './context.js';
import { printJson, printTable } from './output.js';
import { waitFor } from './progress.js';
import { registerBody, type RegisterOptions } from './fleet-register.js';

const HOST_COLUMNS: [string, (host: HostView) => unknown][] = [
  ['ID', (h) => h.id],
  ['DATA CENTER', (h) => h.dataCenterId],
  ['GPU TYPE', (h) => h.gpuTypeId ?? `CPU ${h.cpuTypeId ?? ''}`.trim()],
  [
    'GPUS',
    (h) => (h.gpuTypeId ? `${h.allocatedGpus}/${h.gpuCount}` : `${h.allocatedCpuSlots}/${h.cpuSlots}`),
  ],
  ['PODS', (h) => h.pods],
  ['STATE', (h) => h.state],
  ['SOURCE', (h) => h.source],
  ['REASON', (h) => reasonOf(h)],
];

/** Why the host is in its state: its health's sentence when unhealthy, else the cordon's or drain's. */
function reasonOf(host: HostView): string | null {
  if (host.state === 'UNHEALTHY') return `${host.health.code ?? ''}: ${host.health.reason ?? ''}`;
  if (host.state === 'READY') return null;
  return host.scheduling.reason;
}

/** A host as `key: value` lines, then the pods holding capacity on it. */
function printHost(ctx: Context, host: HostDetailView): void {
  if (ctx.output.json) return printJson(host);
  const health = host.health.healthy
    ? 'healthy'
    : `unhealthy: ${host.health.code} ${host.health.reason ?? ''} (${host.health.source}` +
      `${host.health.gpuIndex !== null ? `, GPU ${host.health.gpuIndex}` : ''}, since ${host.health.since})`;
  const lines: [string, string | number | boolean | null][] = [
    ['id', host.id],
    ['state', host.state],
    ['data center', host.dataCenterId],
    ['GPUs', host.gpuTypeId ? `${host.allocatedGpus}/${host.gpuCount} ${host.gpuTypeId}` : '-'],
    ['CPU slots', `${host.allocatedCpuSlots}/${host.cpuSlots}${host.cpuTypeId ? ` ${host.cpuTypeId}` : ''}`],
    ['address', `${host.publicIp} ports ${host.portRange[0]}-${host.portRange[1]}`],
    ['source', host.source],
    [
      'scheduling',
      `${host.scheduling.state} by ${host.scheduling.by} since ${host.scheduling.since}` +
        `${host.scheduling.reason ? ` (${host.scheduling.reason})` : ''}`,
    ],
    ['health', health],
    ['drain deadline', host.drainDeadline],
    ['drained', host.drained],
    ['pods', host.pods],
  ];
  for (const [key, value] of lines) process.stdout.write(`${key}: ${String(value ?? '-')}\n`);
  if (host.podsOnHost.length === 0) return;
  process.stdout.write('\n');
  printTable(ctx.output, host.podsOnHost, [
    ['POD', (p) => p.podId],
    ['OWNER', (p) => p.ownerId],
    ['CLUSTER', (p) => p.clusterId],
    ['GPUS', (p) => p.gpuCount],
    ['PRIORITY', (p) => p.priority],
    ['SINCE', (p) => p.since],
  ]);
}

const hostPath = (id: string, action = '') => `/v2/fleet/hosts/${encodeURIComponent(id)}${action}`;

/**
 * `gpucp fleet`: the hosts pods are placed on (/v2/fleet/*, operators' keys only). Every change prints the host
 * as it is after it; `drain --wait` follows the drain until nothing holds capacity on the host.
 */
export function fleetCommand(program: Command): void {
  const fleet = program.command('fleet').description('the hosts of the fleet and their capacity (operators)');

  fleet
    .command('hosts')
    .description('the hosts, filtered (every page)')
    .option('--dc <dataCenterId>', 'hosts of this data center')
    .option('--gpu-type <gpuTypeId>', 'hosts of this GPU type')
    .option('--state <state>', 'READY, CORDONED, DRAINING, UNHEALTHY or GONE')
    .option('--source <source>', 'file, api or kubernetes')
    .action(async (options: { dc?: string; gpuType?: string; state?: string; source?: string }, command) => {
      const ctx = contextOf(command as Command);
      const filters = new URLSearchParams({
        ...(options.dc ? { dataCenterId: options.dc } : {}),
        ...(options.gpuType ? { gpuTypeId: options.gpuType } : {}),
        ...(options.state ? { state: options.state.toUpperCase() } : {}),
        ...(options.source ? { source: options.source } : {}),
        limit: '1000',
      });
      const hosts: HostView[] = [];
      for (let after: string | null = null; ;) {
        if (after !== null) filters.set('after', after);
        const page: HostListView = await ctx.api.get<HostListView>(`/v2/fleet/hosts?${filters.toString()}`);
        hosts.push(...page.hosts);
        if (!page.next) break;
        after = page.next;
      }
      printTable(ctx.output, hosts, HOST_COLUMNS);
    });

  fleet
    .command('host <hostId>')
    .description('a host: its state, health, drain deadline and the pods on it')
    .action(async (hostId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printHost(ctx, await ctx.api.get<HostDetailView>(hostPath(hostId)));
    });

  fleet
    .command('register <hostId>')
    .description('register a host (or update its capacity): local, simulated and non-Kubernetes fleets')
    .requiredOption('--dc <dataCenterId>', 'its data center')
    .option('--gpu-type <gpuTypeId>', 'its GPU type (none: a CPU host)')
    .option('--gpus <n>', 'its GPUs', integer, 0)
    .option('--cpu-type <cpuTypeId>', 'its CPU type')
    .option('--cpu-slots <n>', 'CPU pod slots', integer)
    .requiredOption('--ip <address>', 'its public IPv4 address')
    .option('--ports <first-last>', 'its public port range (default 20000-20999)')
    .action(async (hostId: string, options: RegisterOptions, command: Command) => {
      const ctx = contextOf(command);
      printHost(ctx, await ctx.api.post<HostDetailView>('/v2/fleet/hosts', registerBody(hostId, options)));
    });

  for (const action of ['cordon', 'uncordon'] as const) {
    const sub = fleet
      .command(`${action} <hostId>`)
      .description(
        action === 'cordon'
          ? 'no new placements on the host; what runs there stays'
          : 'the host takes placements again (a drain is called off)',
      );
    if (action === 'cordon') sub.option('--reason <text>', 'why, for the other operators');
    sub.action(async (hostId: string, options: { reason?: string }, command: Command) => {
      const ctx = contextOf(command);
      const body = options.reason !== undefined ? { reason: options.reason } : {};
      printHost(ctx, await ctx.api.post<HostDetailView>(hostPath(hostId, `/${action}`), body));
    });
  }

  drainCommand(fleet);

  fleet
    .command('remove <hostId>')
    .description('remove a drained host: it goes GONE')
    .action(async (hostId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printHost(ctx, await ctx.api.delete<HostDetailView>(hostPath(hostId)));
    });

  fleet
    .command('health <hostId>')
    .description('report the host unhealthy (no placements, its pods stopped) or healthy again')
    .option('--unhealthy', 'the host (or --gpu) is unhealthy')
    .option('--healthy', 'the host is healthy again')
    .option('--reason <text>', 'what is wrong, or what was fixed')
    .option('--gpu <index>', 'the GPU at fault', integer)
    .action(async (hostId: string, options: HealthOptions, command: Command) => {
      const ctx = contextOf(command);
      printHost(ctx, await ctx.api.post<HostDetailView>(hostPath(hostId, '/health'), healthBody(options)));
    });

  fleet
    .command('capacity')
    .description('GPUs and CPU pod slots per data center and type: total, allocated, free, unavailable')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const capacity = await ctx.api.get<FleetCapacityView>('/v2/fleet/capacity');
      if (ctx.output.json) return printJson(capacity);
      const rows = [
        ...capacity.gpus.map((row) => ({ ...row, kind: 'GPU', type: row.gpuTypeId })),
        ...capacity.cpus.map((row) => ({ ...row, kind: 'CPU', type: row.cpuTypeId })),
      ];
      printTable(ctx.output, rows, [
        ['DATA CENTER', (r) => r.dataCenterId],
        ['KIND', (r) => r.kind],
        ['TYPE', (r) => r.type],
        ['HOSTS', (r) => r.hosts],
        ['TOTAL', (r) => r.total],
        ['ALLOCATED', (r) => r.allocated],
        ['FREE', (r) => r.free],
        ['UNAVAILABLE', (r) => r.unavailable],
      ]);
      const states = Object.entries(capacity.hosts)
        .map(([state, n]) => `${n} ${state}`)
        .join(', ');
      process.stdout.write(`\nhosts: ${states}\n`);
    });
}

interface HealthOptions {
  unhealthy?: boolean;
  healthy?: boolean;
  reason?: string;
  gpu?: number;
}

function healthBody(options: HealthOptions): Record<string, unknown> {
  if (options.unhealthy === options.healthy) {
    throw new ApiError('say --unhealthy or --healthy (one of them)', 2);
  }
  return {
    healthy: options.healthy === true,
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
    ...(options.gpu !== undefined ? { gpuIndex: options.gpu } : {}),
  };
}

/** `gpucp fleet drain <id> [--wait]`: progress lines until no pod holds capacity on the host. */
function drainCommand(fleet: Command): void {
  fleet
    .command('drain <hostId>')
    .description("no new placements; its workers replaced elsewhere, users' pods stopped at the deadline")
    .option('--reason <text>', 'why, for the other operators and the users told')
    .option(
      '--deadline <seconds>',
      "seconds until users' pods are stopped (default: the scheduler's)",
      integer,
    )
    .option('--wait', 'wait until the host is drained, showing the pods left')
    .option('--timeout <seconds>', 'how long --wait waits', integer, 3600)
    .action(
      async (
        hostId: string,
        options: { reason?: string; deadline?: number; wait?: boolean; timeout: number },
        command: Command,
      ) => {
        const ctx = contextOf(command);
        const body = {
          ...(options.reason !== undefined ? { reason: options.reason } : {}),
          ...(options.deadline !== undefined ? { deadlineSeconds: options.deadline } : {}),
        };
        let host = await ctx.api.post<HostDetailView>(hostPath(hostId, '/drain'), body);
        if (options.wait) {
          host = await waitFor(
            ctx.progress(`host ${hostId}`),
            async () => {
              const now = await ctx.api.get<HostDetailView>(hostPath(hostId));
              if (now.state !== 'DRAINING' || now.drained) {
                return { state: now.drained ? 'drained' : now.state, value: now };
              }
              return {
                state: `draining, ${now.pods} pod${now.pods === 1 ? '' : 's'} left`,
                value: undefined,
              };
            },
            { timeoutMs: seconds(options.timeout) },
          );
        }
        printHost(ctx, host);
      },
    );
}
