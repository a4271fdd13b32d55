import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './paths.js';
import { systemPrefixOf } from './system-prefixes.js';
import { testEnv } from './test-env.js';

const run = promisify(execFile);

export interface TestKey {
  id: string;
  key: string;
  userId: string;
}

/**
 * Runs the gateway's keys CLI (`npm run keys`) against a test database, as an operator would. It records its
 * commands under `natsPrefix`, by default the prefix of the system last started on that database (so its
 * changes reach that system's gateways at once, and a rebuild of its history has them), else the run's.
 */
export async function keysCli(databaseUrl: string, args: string[], natsPrefix?: string): Promise<string> {
  const prefix = natsPrefix ?? systemPrefixOf(databaseUrl) ?? testEnv().natsPrefix;
  const { stdout } = await run(process.execPath, [join(ROOT, 'dist/apps/gateway/cli/keys.mjs'), ...args], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      NATS_URL: testEnv().natsUrl,
      NATS_PREFIX: prefix,
    },
  });
  return stdout.trim();
}

/** Creates a user (unique name) and returns its id. */
export async function createUser(databaseUrl: string, name: string, options: { exempt?: boolean } = {}) {
  const line = await keysCli(databaseUrl, ['user', 'create', name, ...(options.exempt ? ['--exempt'] : [])]);
  return line.split('\t')[0];
}

/** Issues a key for a user: scope full (default), read, or endpoints (with the endpoint ids). */
export async function createKey(
  databaseUrl: string,
  user: string,
  scope: 'full' | 'read' | 'endpoints' = 'full',
  endpointIds: string[] = [],
): Promise<TestKey> {
  const args = ['key', 'create', user, '--scope', scope, '--json'];
  if (endpointIds.length) args.push('--endpoints', endpointIds.join(','));
  return JSON.parse(await keysCli(databaseUrl, args)) as TestKey;
}

export async function revokeKey(databaseUrl: string, keyId: string, natsPrefix?: string): Promise<void> {
  await keysCli(databaseUrl, ['key', 'revoke', keyId], natsPrefix);
}

/** A user with a full-access key, in one call. */
export async function userWithKey(databaseUrl: string, name: string): Promise<TestKey> {
  await createUser(databaseUrl, name);
  return createKey(databaseUrl, name);
}
