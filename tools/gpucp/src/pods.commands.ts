import type { Command } from 'commander';
import type { PodV2List, PodV2View } from '@app/contracts';
import { collect, collectPairs, contextOf, integer, seconds, type Context } from './context.js';
import { printMessage, printRecord, printTable } from './output.js';
import { waitFor } from './progress.js';

const POD_COLUMNS: [string, (pod: PodV2View) => unknown][] = [
  ['ID', (p) => p.id],
  ['NAME', (p) => p.name],
  ['STATUS', (p) => p.status],
  ['GPU', (p) => (p.gpu ? `${p.gpu.count}x ${p.gpu.id}` : p.cpu ? `cpu ${p.cpu.id}` : null)],
  ['COST/HR', (p) => p.costPerHr],
  ['IMAGE', (p) => p.image],
];

/** Waits (with progress) until the pod is RUNNING; fails if it ends in ERROR, EXITED or TERMINATED instead. */
export async function waitForRunning(ctx: Context, podId: string, timeoutMs: number): Promise<PodV2View> {
  return waitFor(
    ctx.progress(`pod ${podId}`),
    async () => {
      const pod = await ctx.api.get<PodV2View>(`/v2/pods/${podId}`);
      if (['ERROR', 'EXITED', 'TERMINATED'].includes(pod.status) && pod.desiredStatus !== 'RUNNING') {
        throw new Error(`pod ${podId} is ${pod.status}, not starting`);
      }
      return { state: pod.status, value: pod.status === 'RUNNING' ? pod : undefined };
    },
    { timeoutMs },
  );
}

export function podsCommand(program: Command): void {
  const pods = program.command('pods').description('GPU and CPU pods (/v2/pods)');

  pods
    .command('list')
    .description('your pods')
    .option('--all', 'include cluster members')
    .action(async (options: { all?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api.get<PodV2List>(`/v2/pods${options.all ? '?includeClusterPods=true' : ''}`);
      printTable(ctx.output, list.pods, POD_COLUMNS);
    });

  pods
    .command('get <podId>')
    .description('one pod')
    .action(async (podId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printRecord(ctx.output, await ctx.api.get<PodV2View>(`/v2/pods/${podId}`));
    });

  pods
    .command('create')
    .description('create a pod (it starts PROVISIONING); --wait follows it to RUNNING')
    .requiredOption('--name <name>', 'its name')
    .option('--image <image>', 'container image (or take it from --template)')
    .option('--template <templateId>', 'a template of yours or of the catalog')
    .option('--gpu <gpuTypeId>', 'GPU type, e.g. "NVIDIA A100 80GB PCIe"')
    .option('--gpu-count <n>', 'GPUs', integer, 1)
    .option('--cpu <flavorId>', 'a CPU pod of this flavour instead of a GPU')
    .option('--vcpus <n>', 'vCPUs of a CPU pod', integer, 2)
    .option('--disk <gb>', 'container disk, GB', integer)
    .option('--port <port>', 'a port to expose, e.g. 8888/http (repeatable)', collect)
    .option('--env <KEY=value>', 'an environment variable (repeatable)', collectPairs)
    .option('--wait', 'wait until the pod is RUNNING, showing its progress')
    .option('--timeout <seconds>', 'how long --wait waits', integer, 600)
    .action(async (options: CreatePodOptions, command: Command) => {
      const ctx = contextOf(command);
      const created = await ctx.api.post<PodV2View>('/v2/pods', createBody(options));
      const pod = options.wait ? await waitForRunning(ctx, created.id, seconds(options.timeout)) : created;
      printRecord(ctx.output, pod);
    });

  for (const action of ['start', 'stop', 'restart'] as const) {
    pods
      .command(`${action} <podId>`)
      .description(`${action} a pod${action === 'stop' ? '' : '; --wait follows it to RUNNING'}`)
      .option('--wait', 'wait until it is RUNNING (start, restart)')
      .option('--timeout <seconds>', 'how long --wait waits', integer, 600)
      .action(async (podId: string, options: { wait?: boolean; timeout: number }, command: Command) => {
        const ctx = contextOf(command);
        let pod = await ctx.api.post<PodV2View>(`/v2/pods/${podId}/action`, { action });
        if (options.wait && action !== 'stop') {
          pod = await waitForRunning(ctx, podId, seconds(options.timeout));
        }
        printRecord(ctx.output, pod);
      });
  }

  pods
    .command('terminate <podId>')
    .description('terminate a pod (its GPUs freed, its disk gone)')
    .action(async (podId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete(`/v2/pods/${podId}`);
      printMessage(ctx.output, `terminated ${podId}`, { id: podId, terminated: true });
    });
}

interface CreatePodOptions {
  name: string;
  image?: string;
  template?: string;
  gpu?: string;
  gpuCount: number;
  cpu?: string;
  vcpus: number;
  disk?: number;
  port?: string[];
  env?: Record<string, string>;
  wait?: boolean;
  timeout: number;
}

function createBody(options: CreatePodOptions): Record<string, unknown> {
  return {
    name: options.name,
    ...(options.image ? { image: options.image } : {}),
    ...(options.template ? { templateId: options.template } : {}),
    ...(options.cpu ? { cpu: { id: options.cpu, vcpuCount: options.vcpus } } : {}),
    ...(options.gpu ? { gpu: { id: options.gpu, count: options.gpuCount } } : {}),
    ...(options.disk !== undefined ? { disk: options.disk } : {}),
    ...(options.port ? { ports: options.port } : {}),
    ...(options.env ? { env: options.env } : {}),
  };
}
