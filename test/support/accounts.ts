import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './paths.js';
import { testEnv } from './test-env.js';

const run = promisify(execFile);

export interface TestKey {
  id: string;
  key: string;
  userId: string;
}

/**
 * Runs the gateway's keys CLI (`npm run keys`) against a test database, as an operator would. `natsPrefix`: the
 * running system's, so its revocations and exemption changes reach the gateways at once (without it they are
 * announced under a prefix nobody listens to, and the gateways see them after AUTH_CACHE_TTL_MS).
 */
export async function keysCli(databaseUrl: string, args: string[], natsPrefix?: string): Promise<string> {
  const bus = natsPrefix ? { NATS_URL: testEnv().natsUrl, NATS_PREFIX: natsPrefix } : {};
  const { stdout } = await run(process.execPath, [join(ROOT, 'dist/apps/gateway/cli/keys.mjs'), ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, ...bus },
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
