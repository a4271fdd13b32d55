import type { Command } from 'commander';
import type { NetworkVolumeList, NetworkVolumeView } from '@app/contracts';
import { contextOf, integer, type Context } from './context.js';
import { printMessage, printRecord, printTable } from './output.js';

const VOLUME_COLUMNS: [string, (volume: NetworkVolumeView) => unknown][] = [
  ['ID', (v) => v.id],
  ['NAME', (v) => v.name],
  ['SIZE GB', (v) => v.size],
  ['DATA CENTER', (v) => v.dataCenterId],
  ['CREATED', (v) => v.createdAt],
];

export function volumesCommand(program: Command): void {
  const volumes = program
    .command('volumes')
    .description('network volumes (/v2/network-volumes): storage pods and clusters of one data center mount');

  volumes
    .command('list')
    .description('your network volumes')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api.get<NetworkVolumeList>('/v2/network-volumes');
      printTable(ctx.output, list.networkVolumes, VOLUME_COLUMNS);
    });

  volumes
    .command('get <volumeId>')
    .description('one network volume')
    .action(async (volumeId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printRecord(ctx.output, await ctx.api.get<NetworkVolumeView>(volumePath(volumeId)));
    });

  volumes
    .command('create')
    .description('create a network volume in a data center')
    .requiredOption('--name <name>', 'its name')
    .requiredOption('--size <gb>', 'size, GB', integer)
    .requiredOption('--data-center <id>', 'the data center, e.g. EU-RO-1 (only pods there can mount it)')
    .action(async (options: { name: string; size: number; dataCenter: string }, command: Command) => {
      const ctx = contextOf(command);
      const body = { name: options.name, size: options.size, dataCenter: options.dataCenter };
      printRecord(ctx.output, await ctx.api.post<NetworkVolumeView>('/v2/network-volumes', body));
    });

  volumes
    .command('update <volumeId>')
    .description('rename or grow a network volume (storage only grows; the API refuses an empty change)')
    .option('--name <name>', 'a new name')
    .option('--size <gb>', 'a new size, GB, at least the current one', integer)
    .action(async (volumeId: string, options: { name?: string; size?: number }, command: Command) => {
      await update(contextOf(command), volumeId, options);
    });

  volumes
    .command('resize <volumeId> <gb>')
    .description('grow a network volume to this size, GB')
    .action(async (volumeId: string, gb: string, _options: unknown, command: Command) => {
      await update(contextOf(command), volumeId, { size: integer(gb) });
    });

  volumes
    .command('delete <volumeId>')
    .description('delete a network volume (refused while a pod or a cluster mounts it)')
    .action(async (volumeId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete(volumePath(volumeId));
      printMessage(ctx.output, `deleted ${volumeId}`, { id: volumeId, deleted: true });
    });
}

async function update(ctx: Context, volumeId: string, body: { name?: string; size?: number }): Promise<void> {
  printRecord(ctx.output, await ctx.api.patch<NetworkVolumeView>(volumePath(volumeId), body));
}

const volumePath = (volumeId: string) => `/v2/network-volumes/${encodeURIComponent(volumeId)}`;
