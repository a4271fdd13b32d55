import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { until } from './pods.e2e-helpers.js';

/**
 * The work that must run once across replicas — the autoscaler's control loop, the queue-broker's sweeper — is led
 * by one replica at a time (a Postgres advisory lock, libs/database/src/advisory-leadership.ts), and a follower
 * takes over when the leader dies.
 */
describe('leader election of the singletons', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  /** Whether the replica's log says it became the leader ("leading …", not "no longer leading …"). */
  const leading = (what: string, replica: number) =>
    new RegExp(`(?<!no longer )leading ${what}`).test(system.logs(app(what), replica));
  const app = (what: string) => (what.startsWith('queue-broker') ? 'queue-broker' : 'endpoint-autoscaler');

  beforeAll(async () => {
    db = await createTestDatabase('leadership', { apps: ['queue-broker', 'endpoint-autoscaler'] });
    system = await startApps({
      apps: ['queue-broker', 'endpoint-autoscaler'],
      databaseUrl: db.url,
      replicas: { 'queue-broker': 2, 'endpoint-autoscaler': 2 },
      env: { LEADER_CHECK_MS: '300', LOG_LEVEL: 'info' },
    });
  });

  afterAll(async () => {
    await system?.stop();
    await db?.drop();
  });

  for (const what of ['endpoint-autoscaler/control-loop', 'queue-broker/sweeper']) {
    it(`${what}: one replica leads; when it is killed, the other takes over`, async () => {
      await until(`a leader of ${what}`, () => leading(what, 0) || leading(what, 1), 10_000);
      const leader = leading(what, 0) ? 0 : 1;
      const follower = 1 - leader;
      expect(leading(what, follower)).toBe(false);
      await system.kill(app(what), 'SIGKILL', leader);
      const killedAt = Date.now();
      await until(`${what} led by the follower`, () => leading(what, follower), 10_000);
      // Within a few checks of the lock (300 ms here): the killed replica's connection, and its lock, went with it.
      expect(Date.now() - killedAt).toBeLessThan(5000);
    });
  }
});

/**
 * The queue-broker's command domains are consumed by one replica each (COMMAND_CONSUMERS=exclusive, ADR 13
 * "Replicas"): the other stands by and takes a domain over when its consumer dies.
 */
describe('exclusive command consumers of the queue-broker', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  const leading = (domain: string, replica: number) =>
    new RegExp(`(?<!no longer )leading queue-broker/commands/${domain}\\b`).test(
      system.logs('queue-broker', replica),
    );

  beforeAll(async () => {
    db = await createTestDatabase('command-leadership', { apps: ['queue-broker'] });
    system = await startApps({
      apps: ['queue-broker'],
      databaseUrl: db.url,
      replicas: { 'queue-broker': 2 },
      env: { LEADER_CHECK_MS: '300', LOG_LEVEL: 'info' },
    });
  });

  afterAll(async () => {
    await system?.stop();
    await db?.drop();
  });

  it('each domain is consumed by one replica; when it is killed, the other takes the domain over', async () => {
    const domain = 'job';
    await until(`a consumer of ${domain}`, () => leading(domain, 0) || leading(domain, 1), 10_000);
    const leader = leading(domain, 0) ? 0 : 1;
    const follower = 1 - leader;
    expect(leading(domain, follower)).toBe(false);
    await system.kill('queue-broker', 'SIGKILL', leader);
    const killedAt = Date.now();
    await until(`${domain} consumed by the follower`, () => leading(domain, follower), 10_000);
    expect(Date.now() - killedAt).toBeLessThan(5000);
    // The follower now leads every domain the dead replica consumed.
    for (const other of ['job', 'worker']) {
      await until(`${other} consumed by the follower`, () => leading(other, follower), 10_000);
    }
  });
});
