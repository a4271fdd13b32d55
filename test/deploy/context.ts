import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BaseConfig, MigrationConfig } from '@app/config';
import type { AppInfo, CheckContext, ConfigClass } from './manifest-checks.js';

/** Health routes the manifests probe; health.spec.ts checks HealthController serves them. */
export const HEALTH_ROUTES = { liveness: '/healthz', readiness: '/readyz' };

/** The apps, in nest-cli.json order (the order `npm run migrate` uses), each with its config class from the code. */
export async function loadApps(root: string): Promise<AppInfo[]> {
  const nest = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8')) as {
    projects: Record<string, { type: string; sourceRoot: string }>;
  };
  const apps: AppInfo[] = [];
  for (const [name, project] of Object.entries(nest.projects)) {
    if (project.type !== 'application') continue;
    const sourceRoot = join(root, project.sourceRoot);
    const configFiles = readdirSync(sourceRoot).filter((file) => file.endsWith('.config.ts'));
    const classes: ConfigClass[] = [];
    for (const file of configFiles) {
      const module = (await import(join(sourceRoot, file))) as Record<string, unknown>;
      for (const value of Object.values(module)) {
        if (typeof value === 'function' && value.prototype instanceof BaseConfig) {
          classes.push(value as ConfigClass);
        }
      }
    }
    if (classes.length !== 1) {
      throw new Error(
        `${project.sourceRoot}: expected one config class extending BaseConfig, found ${classes.length}`,
      );
    }
    apps.push({
      name,
      configClass: classes[0],
      entry: `dist/apps/${name}/server.mjs`,
      migrate: `dist/apps/${name}/migrate.mjs`,
    });
  }
  return apps;
}

export async function loadCheckContext(root: string): Promise<CheckContext> {
  return {
    apps: await loadApps(root),
    migrationConfigClass: MigrationConfig,
    healthRoutes: HEALTH_ROUTES,
    // DESIGN.md: only the gateway serves public routes.
    publicApps: ['gateway'],
  };
}
