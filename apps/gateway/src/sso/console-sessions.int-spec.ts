import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DomainError } from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import { NatsClient } from '@app/messaging';
import { freshNatsPrefix } from '../../../../test/support/system.js';
import { testEnv } from '../../../../test/support/test-env.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { AccountEvents } from '../accounts/account-events.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { ApiKeysRepository } from '../accounts/api-keys.repository.js';
import { PrincipalCache } from '../accounts/principal-cache.js';
import { TeamsRepository } from '../accounts/teams.repository.js';
import { UsersRepository } from '../accounts/users.repository.js';
import { accountCommandsOn } from '../../../../test/support/account-commands.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import type { GatewayConfig } from '../gateway.config.js';
import { ConsoleSessionsRepository } from './console-sessions.repository.js';
import { ConsoleSessions, type SessionRequest } from './console-sessions.service.js';
import { SessionCache } from './session-cache.js';
import { csrfTokenFor, secretHash } from './session-cookies.js';
import { SessionEvents } from './session-events.js';
import { SsoDirectoryRepository } from './sso-directory.repository.js';

/**
 * Console sessions of two gateway replicas on real Postgres and NATS: what a session admits, its CSRF rule, its
 * expiries, and a sign-out on one replica refused at once by the other, whose cache would have kept it a minute.
 */

let db: TestDatabase;
let admin: pg.Client;
let natsPrefix: string;
const closers: (() => Promise<unknown>)[] = [];

const CONFIG = {
  SSO_COOKIE_SECURE: true,
  SSO_SESSION_ABSOLUTE_MS: 12 * 3_600_000,
  SSO_SESSION_IDLE_MS: 3_600_000,
} as GatewayConfig;

async function replica(cacheMs: number): Promise<{ sessions: ConsoleSessions; accounts: AccountsService }> {
  const dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2, 'sessions-test'));
  await dataSource.initialize();
  closers.push(() => dataSource.destroy());
  const nats = await NatsClient.connect(testEnv().natsUrl, natsPrefix, 'sessions-test');
  closers.push(() => nats.drain());
  const users = new UsersRepository(dataSource);
  const teams = new TeamsRepository(dataSource);
  const accounts = new AccountsService(
    users,
    teams,
    new ApiKeysRepository(dataSource),
    new PrincipalCache(0),
    new AccountEvents(null),
    await accountCommandsOn(dataSource, nats),
  );
  const cache = new SessionCache(cacheMs);
  const events = new SessionEvents(cache, nats);
  events.onModuleInit();
  closers.push(() => Promise.resolve(events.beforeApplicationShutdown()));
  const sessions = new ConsoleSessions(
    CONFIG,
    new ConsoleSessionsRepository(dataSource),
    accounts,
    new SsoDirectoryRepository(users, teams),
    cache,
    events,
  );
  return { sessions, accounts };
}

function request(id: string | null, method = 'GET', csrf?: string): SessionRequest {
  return {
    method,
    headers: {
      ...(id ? { cookie: `other=1; __Host-gpucp_session=${id}` } : {}),
      ...(csrf ? { 'x-csrf-token': csrf } : {}),
    },
  };
}

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as DomainError).code;
  }
}

beforeAll(async () => {
  db = await createTestDatabase('console_sessions', { apps: ['gateway'] });
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  natsPrefix = freshNatsPrefix();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await admin?.end();
  await db?.drop();
});

describe('console sessions', () => {
  it("admit the user for their own account through a key of scope full named by the session's hash", async () => {
    const { sessions, accounts } = await replica(5000);
    const user = await accounts.createUser('sess-ada');
    const id = await sessions.create(user.id);
    const rows = await admin.query<{ id_hash: string; account_id: string }>(
      'SELECT id_hash, account_id FROM gateway.console_sessions WHERE user_id = $1',
      [user.id],
    );
    expect(rows.rows).toEqual([{ id_hash: secretHash(id), account_id: user.id }]);
    const principal = await sessions.authenticate(request(id));
    expect(principal).toMatchObject({
      user: { id: user.id },
      account: { id: user.id, kind: 'user' },
      role: 'owner',
      key: { id: `session:${secretHash(id).slice(0, 16)}`, scope: 'full' },
    });
    expect(await sessions.authenticate(request(null))).toBeNull();
    expect(await code(sessions.authenticate(request('x'.repeat(43))))).toBe('UNAUTHENTICATED');
  });

  it('refuse a mutation without the CSRF token of the session (403), not a read', async () => {
    const { sessions, accounts } = await replica(5000);
    const user = await accounts.createUser('sess-bob');
    const id = await sessions.create(user.id);
    const other = await sessions.create(user.id);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(await code(sessions.authenticate(request(id, method)))).toBe('FORBIDDEN');
      expect(await code(sessions.authenticate(request(id, method, csrfTokenFor(other))))).toBe('FORBIDDEN');
      expect(await code(sessions.authenticate(request(id, method, csrfTokenFor(id))))).toBeUndefined();
    }
    expect(await code(sessions.authenticate(request(id, 'HEAD')))).toBeUndefined();
  });

  it('end at their idle and absolute expiry', async () => {
    const { sessions, accounts } = await replica(0);
    const user = await accounts.createUser('sess-cy');
    const idle = await sessions.create(user.id);
    const old = await sessions.create(user.id);
    await admin.query(
      "UPDATE gateway.console_sessions SET last_seen_at = now() - interval '61 minutes' WHERE id_hash = $1",
      [secretHash(idle)],
    );
    await admin.query(
      "UPDATE gateway.console_sessions SET expires_at = now() - interval '1 second' WHERE id_hash = $1",
      [secretHash(old)],
    );
    expect(await code(sessions.authenticate(request(idle)))).toBe('UNAUTHENTICATED');
    expect(await code(sessions.authenticate(request(old)))).toBe('UNAUTHENTICATED');
  });

  it('switch only to an account of the user', async () => {
    const { sessions, accounts } = await replica(5000);
    const user = await accounts.createUser('sess-di');
    const stranger = await accounts.createUser('sess-eve');
    const id = await sessions.create(user.id);
    expect(await code(sessions.switchAccount(id, stranger.id))).toBe('NOT_FOUND');
    await sessions.switchAccount(id, user.id);
  });

  it('signed out on one replica are refused by the other at once, though it cached them for a minute', async () => {
    const a = await replica(60_000);
    const b = await replica(60_000);
    const user = await a.accounts.createUser('sess-fay');
    const id = await a.sessions.create(user.id);
    expect(await b.sessions.authenticate(request(id))).not.toBeNull();
    await a.sessions.end(id);
    const started = performance.now();
    while ((await code(b.sessions.authenticate(request(id)))) !== 'UNAUTHENTICATED') {
      if (performance.now() - started > 1000) throw new Error('replica b still admits the session after 1 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await code(a.sessions.authenticate(request(id)))).toBe('UNAUTHENTICATED');
  });
});
