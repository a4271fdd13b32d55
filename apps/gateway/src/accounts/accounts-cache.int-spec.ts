import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '@app/database';
import { NatsClient } from '@app/messaging';
import { freshNatsPrefix } from '../../../../test/support/system.js';
import { testEnv } from '../../../../test/support/test-env.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { AccountEvents, AccountEventsListener } from './account-events.js';
import { AccountsService } from './accounts.service.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { accountCommandsOn } from '../../../../test/support/account-commands.js';
import { PrincipalCache } from './principal-cache.js';
import { TeamsRepository } from './teams.repository.js';
import { UsersRepository } from './users.repository.js';

/**
 * The auth cache of two gateway replicas on real Postgres and NATS: a revocation or an exemption change made on
 * one (or by the CLI) reaches the other within a second through `account.evt.changed`; a change nobody announces
 * is bounded by the TTL; repeated lookups of a key, good or bad, cost no query.
 */

interface Replica {
  accounts: AccountsService;
  cache: PrincipalCache;
  listener: AccountEventsListener;
  queries: () => number;
}

let db: TestDatabase;
let admin: pg.Client;
const closers: (() => Promise<unknown>)[] = [];
let natsPrefix: string;

async function replica(ttlMs: number, withBus = true): Promise<Replica> {
  const dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2, 'auth-cache-test'));
  await dataSource.initialize();
  closers.push(() => dataSource.destroy());
  let queries = 0;
  const keys = new ApiKeysRepository(dataSource);
  const users = new UsersRepository(dataSource);
  const findWithUserByHash = keys.findWithUserByHash.bind(keys);
  keys.findWithUserByHash = (hash) => (queries++, findWithUserByHash(hash));
  // Every replica records its account commands; only those `withBus` hear the others' changes.
  const bus = await NatsClient.connect(testEnv().natsUrl, natsPrefix, 'auth-cache-test');
  closers.push(() => bus.drain());
  const nats = withBus ? bus : null;
  const cache = new PrincipalCache(ttlMs);
  const listener = nats ? new AccountEventsListener(nats, cache) : undefined;
  listener?.onModuleInit();
  if (listener) closers.push(() => Promise.resolve(listener.beforeApplicationShutdown()));
  const commands = await accountCommandsOn(dataSource, bus);
  const accounts = new AccountsService(
    users,
    new TeamsRepository(dataSource),
    keys,
    cache,
    new AccountEvents(nats),
    commands,
  );
  return { accounts, cache, listener: listener as AccountEventsListener, queries: () => queries };
}

/** How long (ms) until `check` holds, polling every 5 ms; fails past `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

beforeAll(async () => {
  db = await createTestDatabase('auth_cache', { apps: ['gateway'] });
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  natsPrefix = freshNatsPrefix();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await admin?.end();
  await db?.drop();
});

describe('the auth cache', () => {
  it('answers repeated lookups of a key, valid or not, from memory', async () => {
    const r = await replica(60_000, false);
    await r.accounts.createUser('carol');
    const { key } = await r.accounts.createKey('carol', 'full');
    const bad = `cpk_${'x'.repeat(43)}`;
    for (let i = 0; i < 5; i++) {
      expect(await r.accounts.authenticate(key)).toMatchObject({ user: { name: 'carol' } });
      expect(await r.accounts.authenticate(bad)).toBe('unknown');
    }
    expect(r.queries()).toBe(2);
  });

  it('refuses a key revoked on another replica within a second, and the new exemption too', async () => {
    const [one, two] = [await replica(60_000), await replica(60_000)];
    await one.accounts.createUser('dave');
    const kept = await one.accounts.createKey('dave', 'full', 'kept');
    const doomed = await one.accounts.createKey('dave', 'full', 'doomed');
    expect(await two.accounts.authenticate(doomed.key)).toMatchObject({ key: { id: doomed.record.id } });
    expect(await two.accounts.authenticate(kept.key)).toMatchObject({ user: { rateLimitExempt: false } });

    await one.accounts.revokeKey(doomed.record.id);
    const ms = await within(1000, async () => (await two.accounts.authenticate(doomed.key)) === 'revoked');
    expect(ms).toBeLessThan(1000);
    expect(await one.accounts.authenticate(doomed.key)).toBe('revoked');

    await one.accounts.updateUser('dave', { rateLimitExempt: true });
    await within(1000, async () => {
      const found = await two.accounts.authenticate(kept.key);
      return typeof found !== 'string' && found.user.rateLimitExempt;
    });
  });

  it("refuses an endpoint's worker keys on every replica once the endpoint is deleted", async () => {
    const [one, two] = [await replica(60_000), await replica(60_000)];
    await one.accounts.createUser('erin');
    const user = await one.accounts.findUser('erin');
    const actor = { userId: user?.id ?? '', kind: 'user' as const };
    const worker = await one.accounts.issueWorkerKey(actor, 'ep-gone');
    expect(await two.accounts.authenticate(worker.key)).not.toBe('revoked');
    expect(await one.accounts.revokeWorkerKeys('ep-gone', actor)).toBe(1);
    await within(1000, async () => (await two.accounts.authenticate(worker.key)) === 'revoked');
  });

  it('keeps a change nobody announced for at most the TTL', async () => {
    const r = await replica(400, false);
    await r.accounts.createUser('frank');
    const issued = await r.accounts.createKey('frank', 'full');
    expect(await r.accounts.authenticate(issued.key)).not.toBe('revoked');
    // Revoked behind the gateways' back: no event.
    await admin.query(`UPDATE gateway.api_keys SET revoked_at = now() WHERE id = $1`, [issued.record.id]);
    const started = performance.now();
    expect(await r.accounts.authenticate(issued.key)).not.toBe('revoked');
    await within(1000, async () => (await r.accounts.authenticate(issued.key)) === 'revoked');
    expect(performance.now() - started).toBeLessThan(400 + 100);
  });
});
