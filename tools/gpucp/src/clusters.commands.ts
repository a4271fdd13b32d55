import type { Command } from 'commander';
import type { ClusterList, ClusterView, PodV2List } from '@app/contracts';
import { contextOf, integer, seconds } from './context.js';
import { printMessage, printRecord, printTable } from './output.js';
import { waitFor } from './progress.js';

const CLUSTER_COLUMNS: [string, (cluster: ClusterView) => unknown][] = [
  ['ID', (c) => c.id],
  ['NAME', (c) => c.name],
  ['TYPE', (c) => c.type],
  ['PODS', (c) => c.pods.total],
  ['BY STATUS', (c) => c.pods.byStatus],
  ['DATA CENTER', (c) => c.dataCenterId],
];

export function clustersCommand(program: Command): void {
  const clusters = program.command('clusters').description('multi-node GPU clusters (/v2/clusters)');

  clusters
    .command('list')
    .description('your clusters')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api.get<ClusterList>('/v2/clusters');
      printTable(ctx.output, list.clusters, CLUSTER_COLUMNS);
    });

  clusters
    .command('get <clusterId>')
    .description('one cluster')
    .action(async (clusterId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printRecord(ctx.output, await ctx.api.get<ClusterView>(`/v2/clusters/${clusterId}`));
    });

  clusters
    .command('create')
    .description('create a cluster; --wait follows its pods to RUNNING')
    .requiredOption('--name <name>', 'its name')
    .requiredOption('--gpu <gpuTypeId>', 'GPU type of every pod')
    .option('--gpus-per-pod <n>', 'GPUs per pod', integer, 1)
    .option('--pods <n>', 'how many pods', integer, 2)
    .option('--type <type>', 'TRAINING or APPLICATION', 'TRAINING')
    .option('--image <image>', 'container image of the pods')
    .option('--wait', 'wait until every pod is RUNNING, showing progress')
    .option('--timeout <seconds>', 'how long --wait waits', integer, 900)
    .action(async (options: CreateClusterOptions, command: Command) => {
      const ctx = contextOf(command);
      const cluster = await ctx.api.post<ClusterView>('/v2/clusters', {
        name: options.name,
        type: options.type,
        compute: { gpuTypeId: options.gpu, gpuCountPerPod: options.gpusPerPod, podCount: options.pods },
        ...(options.image ? { image: options.image } : {}),
      });
      if (options.wait) {
        await waitFor(
          ctx.progress(`cluster ${cluster.id}`),
          async () => {
            const { pods } = await ctx.api.get<PodV2List>(`/v2/clusters/${cluster.id}/pods`);
            const running = pods.filter((pod) => pod.status === 'RUNNING').length;
            return {
              state: `${running}/${pods.length} pods RUNNING`,
              value: (pods.length > 0 && running === pods.length) || undefined,
            };
          },
          { timeoutMs: seconds(options.timeout) },
        );
      }
      printRecord(
        ctx.output,
        options.wait ? await ctx.api.get<ClusterView>(`/v2/clusters/${cluster.id}`) : cluster,
      );
    });

  clusters
    .command('delete <clusterId>')
    .description('delete a cluster (its pods are terminated)')
    .action(async (clusterId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete(`/v2/clusters/${clusterId}`);
      printMessage(ctx.output, `deleted ${clusterId}`, { id: clusterId, deleted: true });
    });
}

interface CreateClusterOptions {
  name: string;
  gpu: string;
  gpusPerPod: number;
  pods: number;
  type: string;
  image?: string;
  wait?: boolean;
  timeout: number;
}
