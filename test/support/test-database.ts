import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { APP_NAMES, type AppName } from '@app/contracts';
import { ROOT } from './paths.js';
import { testEnv } from './test-env.js';

export interface TestDatabase {
  /** Connection URL of the new database (same server and credentials as TEST_ADMIN_DATABASE_URL). */
  url: string;
  name: string;
  /** Drops the database, disconnecting whoever still uses it. Safe to call twice. */
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** Apps whose migrations to apply, in this order; every app by default. */
  apps?: readonly AppName[];
}

/** Postgres truncates identifiers beyond 63 bytes (with only a NOTICE), which would break `drop()`. */
const MAX_IDENTIFIER = 63;

/**
 * Creates database `gpucp_test_<runId>_<label>_<random>` holding the apps' migrations, applied by running their
 * built `dist/apps/<app>/migrate.mjs`, exactly as a deployment does. They run once per run and list of apps, into a
 * template database (`migratedTemplate`); each test database is a copy of it (`CREATE DATABASE ... TEMPLATE`),
 * which is the same schema and migrations table in a fraction of a second, where five migrate processes took about
 * 5 s per database (issue 16). The `gpucp_test_<runId>_` prefix lets `npm test` drop whatever a crashed test left
 * behind, templates included; still call `drop()` in `afterAll`.
 */
export async function createTestDatabase(
  label: string,
  options: CreateTestDatabaseOptions = {},
): Promise<TestDatabase> {
  const env = testEnv();
  const apps = options.apps ?? APP_NAMES;
  for (const app of apps) {
    if (!existsSync(migrateScript(app))) {
      throw new Error(`dist/apps/${app}/migrate.mjs is missing: run \`npm run build\` first (npm test does)`);
    }
  }
  const prefix = `gpucp_test_${env.runId}_`;
  const suffix = `_${randomBytes(4).toString('hex')}`;
  const cleanLabel = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, Math.max(1, MAX_IDENTIFIER - prefix.length - suffix.length));
  const name = `${prefix}${cleanLabel || 'db'}${suffix}`;

  const useTemplate = apps.length > 0 && process.env.TEST_DATABASE_TEMPLATES !== '0';
  const template = useTemplate ? await migratedTemplate(env.adminDatabaseUrl, prefix, apps) : null;
  await withAdmin(env.adminDatabaseUrl, (client) =>
    client.query(
      `CREATE DATABASE ${quoteIdent(name)}` + (template ? ` TEMPLATE ${quoteIdent(template)}` : ''),
    ),
  );
  const url = databaseUrlFor(env.adminDatabaseUrl, name);
  const database: TestDatabase = {
    url,
    name,
    drop: () =>
      withAdmin(env.adminDatabaseUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      }),
  };
  if (!template) {
    // TEST_DATABASE_TEMPLATES=0: the migrations run into every test database, as they did before templates.
    try {
      for (const app of apps) await migrate(app, url);
    } catch (error) {
      await database.drop().catch(() => undefined);
      throw error;
    }
  }
  return database;
}

/** What a template's comment says once every migration was applied to it (a comment is not copied to copies). */
const MIGRATED = 'migrated';

/**
 * The run's template database for `apps` (in that order): `<prefix>tpl_<hash of the list>`, created and migrated by
 * the first caller of the run. An advisory lock makes the other callers (other jest workers, other files) wait for
 * it; a template without its `migrated` comment is one whose migrations failed or were interrupted, dropped and
 * made again. Nobody connects to a template but its migrations, so copies of it can be made at any time.
 */
async function migratedTemplate(adminUrl: string, prefix: string, apps: readonly AppName[]): Promise<string> {
  const hash = createHash('sha256').update(apps.join(',')).digest('hex').slice(0, 12);
  const name = `${prefix}tpl_${hash}`;
  return withAdmin(adminUrl, async (client) => {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    try {
      const { rows } = await client.query<{ comment: string | null }>(
        "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
        [name],
      );
      if (rows[0]?.comment === MIGRATED) return name;
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
      const url = databaseUrlFor(adminUrl, name);
      for (const app of apps) await migrate(app, url);
      await client.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS '${MIGRATED}'`);
      return name;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch(() => undefined);
    }
  });
}

/** The same server and credentials as `adminUrl`, pointing at database `name`. */
export function databaseUrlFor(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

function migrateScript(app: AppName): string {
  return join(ROOT, 'dist', 'apps', app, 'migrate.mjs');
}

function migrate(app: AppName, databaseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--enable-source-maps', migrateScript(app)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else {
        const how = signal ? `was killed by ${signal}` : `exited with ${code}`;
        reject(new Error(`migrations of ${app} ${how}:\n${output.trim()}`));
      }
    });
  });
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
