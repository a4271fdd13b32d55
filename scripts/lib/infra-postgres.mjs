import { existsSync, readdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import {
  ROOT,
  APPS,
  POSTGRES_PORT,
  LOCAL_HOST,
  InfraError,
  log,
  oneLine,
  run,
  runChecked,
  ignore,
  poll,
  which,
  canAptInstall,
  aptInstall,
  isListening,
} from './infra-process.mjs';

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL

/** Shows a connection URL with its password masked. */
export function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparsable URL>';
  }
}

async function withClient(url, fn) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', ignore);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(ignore);
  }
}

const checkConnects = (url) => withClient(url, (client) => client.query('SELECT 1'));

// The server is not up yet (or still starting): worth polling again rather than giving up.
const TRANSIENT_PG_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P03']);

/**
 * Makes sure PostgreSQL is reachable and returns an admin connection URL. With a URL (argument or DATABASE_URL)
 * it only checks the connection. Otherwise it uses 127.0.0.1:5432 (trust auth as `postgres` or the OS user),
 * starting the Debian cluster, or installing PostgreSQL as root on Debian/Ubuntu, when nothing listens there.
 */
export async function ensurePostgres(databaseUrl = process.env.DATABASE_URL) {
  if (databaseUrl) {
    try {
      await checkConnects(databaseUrl);
    } catch (error) {
      throw new InfraError(`cannot connect to PostgreSQL at ${redact(databaseUrl)}: ${oneLine(error)}`);
    }
    log(`PostgreSQL: ${redact(databaseUrl)}`);
    return databaseUrl;
  }
  if (!(await isListening(POSTGRES_PORT))) await startLocalPostgres();
  const candidates = [...new Set(['postgres', userInfo().username])].map(
    (user) => `postgres://${encodeURIComponent(user)}@${LOCAL_HOST}:${POSTGRES_PORT}/postgres`,
  );
  // The password that startLocalPostgres sets on a cluster it installed (Debian's default is scram over TCP).
  candidates.push(`postgres://postgres:postgres@${LOCAL_HOST}:${POSTGRES_PORT}/postgres`);
  let lastError;
  const url = await poll(async () => {
    for (const candidate of candidates) {
      try {
        await checkConnects(candidate);
        return candidate;
      } catch (error) {
        lastError = error;
        if (TRANSIENT_PG_ERRORS.has(error.code)) return undefined;
      }
    }
    return null; // the server answers but refuses every candidate: polling will not help
  }, 30_000);
  if (!url) {
    throw new InfraError(
      `cannot connect to PostgreSQL on ${LOCAL_HOST}:${POSTGRES_PORT} as ${candidates.map((c) => new URL(c).username).join(' or ')}` +
        ` (${lastError ? oneLine(lastError) : 'timed out'}): allow trust auth for 127.0.0.1 or set DATABASE_URL`,
    );
  }
  log(`PostgreSQL: ${redact(url)}`);
  return url;
}

function debianClusterVersions() {
  if (!existsSync('/etc/postgresql')) return [];
  return readdirSync('/etc/postgresql')
    .filter((version) => existsSync(`/etc/postgresql/${version}/main`))
    .sort((a, b) => Number(b) - Number(a));
}

async function startLocalPostgres() {
  let versions = debianClusterVersions();
  let installed = false;
  if (versions.length === 0) {
    if (!canAptInstall()) {
      const hasPostgres = which('postgres') || which('pg_ctl');
      throw new InfraError(
        hasPostgres
          ? `PostgreSQL is not running on ${LOCAL_HOST}:${POSTGRES_PORT}: start it (trust auth for 127.0.0.1) or set DATABASE_URL`
          : 'PostgreSQL is not installed: install PostgreSQL 15+ (apt-get install postgresql) or set DATABASE_URL',
      );
    }
    await aptInstall('postgresql');
    versions = debianClusterVersions();
    if (versions.length === 0) {
      throw new InfraError('apt-get installed postgresql but created no cluster in /etc/postgresql');
    }
    installed = true;
  }
  const version = versions[0];
  log(`starting PostgreSQL cluster ${version}/main`);
  const code = await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
  // Exit code 2 is "already running" (the package's postinst may have started it).
  if (code !== 0 && !(await isListening(POSTGRES_PORT))) {
    throw new InfraError(
      `PostgreSQL cluster ${version}/main did not start (see /var/log/postgresql/postgresql-${version}-main.log)`,
    );
  }
  if (installed) {
    // A fresh Debian cluster only allows password logins over TCP; give `postgres` a known local password.
    await runChecked('setting the postgres password', 'runuser', [
      '-u',
      'postgres',
      '--',
      'psql',
      '-qc',
      "ALTER USER postgres PASSWORD 'postgres'",
    ]);
  }
}

function quoteIdent(name) {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The same server and credentials as `adminUrl`, pointing at database `name`. */
export function databaseUrlFor(adminUrl, name) {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** CREATE DATABASE unless it exists; returns its URL. */
export async function createDatabase(adminUrl, name) {
  try {
    await withClient(adminUrl, async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount > 0) return;
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((error) => {
        if (error.code !== '42P04') throw error; // created concurrently: fine
      });
      log(`created database ${name}`);
    });
  } catch (error) {
    throw new InfraError(`cannot create database ${name}: ${oneLine(error)}`);
  }
  return databaseUrlFor(adminUrl, name);
}

/** DROP DATABASE IF EXISTS, disconnecting anyone still using it. */
export async function dropDatabase(adminUrl, name) {
  try {
    await withClient(adminUrl, (client) =>
      client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`),
    );
  } catch (error) {
    throw new InfraError(`cannot drop database ${name}: ${oneLine(error)}`);
  }
}

/** Names of the databases whose name starts with `prefix` (taken literally, not as a LIKE pattern). */
export async function listDatabases(adminUrl, prefix) {
  const { rows } = await withClient(adminUrl, (client) =>
    client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [prefix]),
  );
  return rows.map((row) => row.datname);
}

/**
 * The database the apps use: DATABASE_URL as given, or database DATABASE_NAME (default `gpucp`) on the local
 * server, created when missing.
 */
export async function ensureAppDatabase() {
  if (process.env.DATABASE_URL) return ensurePostgres(process.env.DATABASE_URL);
  const adminUrl = await ensurePostgres();
  return createDatabase(adminUrl, process.env.DATABASE_NAME || 'gpucp');
}

/** Runs every app's migrations in order; `env` is added to the current environment. */
export async function runMigrations(env) {
  for (const { name } of APPS) {
    const script = join('dist', 'apps', name, 'migrate.mjs');
    if (!existsSync(join(ROOT, script))) throw new InfraError(`${script} is missing: did the build succeed?`);
    log(`migrating ${name}`);
    const code = await run(process.execPath, ['--enable-source-maps', script], {
      env: { ...process.env, ...env },
    });
    if (code !== 0) throw new InfraError(`migrations of ${name} failed (exit code ${code})`);
  }
}
