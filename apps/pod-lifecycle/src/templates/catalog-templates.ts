import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { TemplateSource, TemplateView } from '@app/contracts';
import { startupTasks } from '@app/observability';
import { PodLifecycleConfig } from '../pod-lifecycle.config.js';
import { newTemplate } from './create-template/create-template.handler.js';
import type { TemplateEntity } from './template.entity.js';
import { toTemplateView } from './template.mapper.js';
import { parseCatalogTemplates } from './catalog-templates-file.js';

interface Listed {
  /** In the shape of a user's template, so pods merge it exactly as they merge their own. */
  template: TemplateEntity;
  source: TemplateSource;
}

/**
 * The public templates of the catalog, from CATALOG_TEMPLATES_FILE: read once at boot (a start-up task, so the
 * command consumers, which start after the start-up tasks, never apply a command without it) and kept in memory.
 * It is operator configuration like the fleet, not user data: nothing writes it at run time, and every replica
 * reads the same file. A file that cannot be read or is invalid ends the boot. See docs/adr/0019-public-catalog-templates.md.
 */
@Injectable()
export class CatalogTemplates implements OnModuleInit {
  private readonly logger = new Logger('catalog-templates');
  private loaded?: Promise<Map<string, Listed>>;

  constructor(private readonly config: PodLifecycleConfig) {}

  onModuleInit(): void {
    const loading = this.load();
    this.loaded = loading;
    void startupTasks.run('catalog templates', () => loading);
  }

  /** The catalog's template of that id, or null (then it may be a user's). */
  async find(id: string): Promise<TemplateEntity | null> {
    return (await this.entries()).get(id)?.template ?? null;
  }

  async list(source: TemplateSource): Promise<TemplateView[]> {
    return [...(await this.entries()).values()]
      .filter((listed) => listed.source === source)
      .map((listed) => toCatalogTemplateView(listed.template));
  }

  private entries(): Promise<Map<string, Listed>> {
    if (!this.loaded) throw new Error('the catalog templates are asked for before the module is initialised');
    return this.loaded;
  }

  private async load(): Promise<Map<string, Listed>> {
    const path = resolve(this.config.CATALOG_TEMPLATES_FILE);
    let text: string;
    let modified: Date;
    try {
      [text, modified] = await Promise.all([readFile(path, 'utf8'), stat(path).then((s) => s.mtime)]);
    } catch (error) {
      throw new Error(`CATALOG_TEMPLATES_FILE ${path} cannot be read: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const entries = parseCatalogTemplates(text, path);
    this.logger.log(`loaded ${entries.length} catalog templates from ${path}`);
    return new Map(
      entries.map((entry) => [
        entry.id,
        {
          // No user has an empty id: a catalog template is nobody's to change.
          template: newTemplate(entry, {
            id: entry.id,
            ownerId: '',
            createdAt: entry.createdAt ? new Date(entry.createdAt) : modified,
          }),
          source: entry.source ?? 'official',
        },
      ]),
    );
  }
}

/** A catalog template as the API shows it: no owner, public. */
export function toCatalogTemplateView(template: TemplateEntity): TemplateView {
  return { ...toTemplateView(template), userId: null, isPublic: true };
}
