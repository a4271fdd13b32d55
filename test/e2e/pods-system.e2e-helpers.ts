import { userWithKey } from '../support/accounts.js';
import { closeBus } from '../support/bus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { PlacementStandIn, client, type Call } from './pods.e2e-helpers.js';

/**
 * What the pod e2e tests run against: the gateway and pod-lifecycle (simulated runtime, quick timings) on a
 * database of their own, placement answered by the stand-in, and two users, alice and bob.
 */
export interface PodsSystem {
  db: TestDatabase;
  system: RunningSystem;
  placement: PlacementStandIn;
  alice: Call;
  aliceId: string;
  /** alice's API key, for the surfaces that take it otherwise (GraphQL). */
  aliceKey: string;
  bob: Call;
}

export async function startPodsSystem(label: string): Promise<PodsSystem> {
  const db = await createTestDatabase(label, { apps: ['gateway', 'pod-lifecycle'] });
  const system = await startApps({
    apps: ['gateway', 'pod-lifecycle'],
    databaseUrl: db.url,
    appEnv: {
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
    },
  });
  const placement = await new PlacementStandIn(system.natsPrefix).start();
  const key = await userWithKey(db.url, 'alice');
  const bob = client(system, (await userWithKey(db.url, 'bob')).key);
  return {
    db,
    system,
    placement,
    alice: client(system, key.key),
    aliceId: key.userId,
    aliceKey: key.key,
    bob,
  };
}

/** Stops what startPodsSystem started (any part may be missing when the start failed half way). */
export async function stopPodsSystem(pods: Partial<PodsSystem>): Promise<void> {
  await pods.placement?.stop();
  await closeBus();
  await pods.system?.stop();
  if (pods.system) await deleteStreams(pods.system.natsPrefix);
  await pods.db?.drop();
}
