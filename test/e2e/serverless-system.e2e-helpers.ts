import type { TemplateView } from '@app/contracts';
import { createKey, userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem, type StartAppsOptions } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { client, type Call } from './pods.e2e-helpers.js';

/**
 * What the serverless endpoint e2e tests run against: all five apps on a database of their own (simulated
 * runtime), alice with a serverless template, her read-only key, and bob.
 */
export interface ServerlessSystem {
  db: TestDatabase;
  system: RunningSystem;
  alice: Call;
  aliceKey: string;
  bob: Call;
  /** alice's read-only key. */
  reader: Call;
  template: TemplateView;
}

export async function startServerlessSystem(
  label: string,
  appEnv: StartAppsOptions['appEnv'],
): Promise<ServerlessSystem> {
  const apps = [
    'gateway',
    'cluster-scheduler',
    'pod-lifecycle',
    'endpoint-autoscaler',
    'queue-broker',
  ] as const;
  const db = await createTestDatabase(label, { apps });
  const system = await startApps({ apps, databaseUrl: db.url, appEnv });
  const a = await userWithKey(db.url, 'alice');
  const alice = client(system, a.key);
  const template = (
    await alice<TemplateView>('POST', '/v1/templates', {
      name: 'echo-worker',
      imageName: 'gpucp/echo-worker:latest',
      isServerless: true,
    })
  ).body;
  return {
    db,
    system,
    alice,
    aliceKey: a.key,
    bob: client(system, (await userWithKey(db.url, 'bob')).key),
    reader: client(system, (await createKey(db.url, 'alice', 'read')).key),
    template,
  };
}

/** Stops what startServerlessSystem started (any part may be missing when the start failed half way). */
export async function stopServerlessSystem({ db, system }: Partial<ServerlessSystem>): Promise<void> {
  await system?.stop();
  if (system) await deleteStreams(system.natsPrefix);
  await db?.drop();
}
