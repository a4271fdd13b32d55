import { Option, type Command } from 'commander';
import type { TemplateList, TemplateV2View } from '@app/contracts';
import { collect, collectPairs, contextOf, integer } from './context.js';
import { printMessage, printRecord, printTable } from './output.js';

const TEMPLATE_COLUMNS: [string, (template: TemplateV2View) => unknown][] = [
  ['ID', (t) => t.id],
  ['NAME', (t) => t.name],
  ['IMAGE', (t) => t.image],
  ['DISK', (t) => t.disk],
  ['SERVERLESS', (t) => t.serverless],
  ['PUBLIC', (t) => t.public],
];

/** The catalog's slices (`GET /v2/catalog/templates?source=`). */
const CATALOG_SOURCES = ['official', 'verified', 'community'];

export function templatesCommand(program: Command): void {
  const templates = program
    .command('templates')
    .description('templates pods and endpoints are made from (/v2/templates), and the public catalog');

  templates
    .command('list')
    .description('your templates; --catalog: the public ones anyone may start from')
    .option('--catalog', 'the public catalog (/v2/catalog/templates) instead of yours')
    .addOption(
      new Option('--source <source>', 'the slice of the catalog (implies --catalog)').choices(
        CATALOG_SOURCES,
      ),
    )
    .action(async (options: { catalog?: boolean; source?: string }, command: Command) => {
      const ctx = contextOf(command);
      const path =
        options.catalog || options.source
          ? `/v2/catalog/templates${options.source ? `?source=${options.source}` : ''}`
          : '/v2/templates';
      const list = await ctx.api.get<TemplateList>(path);
      printTable(ctx.output, list.templates, TEMPLATE_COLUMNS);
    });

  templates
    .command('get <templateId>')
    .description('one template, yours or of the catalog')
    .action(async (templateId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      printRecord(
        ctx.output,
        await ctx.api.get<TemplateV2View>(`/v2/templates/${encodeURIComponent(templateId)}`),
      );
    });

  withTemplateFields(
    templates
      .command('create')
      .description('create a template')
      .requiredOption('--name <name>', 'its name (unique among yours)')
      .requiredOption('--image <image>', 'container image'),
  )
    .option('--serverless', "a template for serverless endpoints' workers (default: for pods)")
    .action(async (options: TemplateOptions, command: Command) => {
      const ctx = contextOf(command);
      const created = await ctx.api.post<TemplateV2View>('/v2/templates', templateBody(options));
      printRecord(ctx.output, created);
    });

  withTemplateFields(
    templates
      .command('update <templateId>')
      .description('change a template: only the fields given change (--env and --port replace the whole set)')
      .option('--name <name>', 'a new name')
      .option('--image <image>', 'a new container image'),
  )
    .option('--no-registry', 'remove the registry credential')
    .action(async (templateId: string, options: TemplateOptions, command: Command) => {
      const ctx = contextOf(command);
      const path = `/v2/templates/${encodeURIComponent(templateId)}`;
      printRecord(ctx.output, await ctx.api.patch<TemplateV2View>(path, templateBody(options)));
    });

  templates
    .command('delete <templateId>')
    .description('delete a template (refused while a pod or an endpoint uses it)')
    .action(async (templateId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api.delete(`/v2/templates/${encodeURIComponent(templateId)}`);
      printMessage(ctx.output, `deleted ${templateId}`, { id: templateId, deleted: true });
    });
}

/** The fields create and update share, in v2's names. */
function withTemplateFields(command: Command): Command {
  return command
    .option('--args <args>', 'the container start command arguments')
    .option('--disk <gb>', 'container disk, GB', integer)
    .option('--env <KEY=value>', 'an environment variable (repeatable)', collectPairs)
    .option('--port <port>', 'a port to expose, e.g. 8888/http (repeatable)', collect)
    .option('--registry <registryId>', 'a container registry credential (/v2/registries)')
    .option('--volume <gb>', 'a pod volume of this size for pods made from it (at least 10)', integer)
    .option('--volume-path <path>', 'where the pod volume is mounted (with --volume)', '/workspace')
    .option('--readme <text>', 'a description');
}

interface TemplateOptions {
  name?: string;
  image?: string;
  args?: string;
  disk?: number;
  env?: Record<string, string>;
  port?: string[];
  /** An id, or false for `--no-registry` (update only); undefined when neither is given. */
  registry?: string | false;
  volume?: number;
  volumePath: string;
  readme?: string;
  serverless?: boolean;
}

/** Only what the user gave: PATCH changes exactly the fields present. */
export function templateBody(options: TemplateOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.name !== undefined) body.name = options.name;
  if (options.image !== undefined) body.image = options.image;
  if (options.args !== undefined) body.args = options.args;
  if (options.disk !== undefined) body.disk = options.disk;
  if (options.env !== undefined) body.env = options.env;
  if (options.port !== undefined) body.ports = options.port;
  if (options.registry !== undefined) body.registry = options.registry === false ? null : options.registry;
  if (options.volume !== undefined) {
    body.mounts = { persistent: { size: options.volume, path: options.volumePath } };
  }
  if (options.readme !== undefined) body.readme = options.readme;
  if (options.serverless) body.serverless = true;
  return body;
}
