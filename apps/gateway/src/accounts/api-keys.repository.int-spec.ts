import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { Subjects } from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import { NatsClient } from '@app/messaging';
import { accountCommandsOn } from '../../../../test/support/account-commands.js';
import { freshNatsPrefix } from '../../../../test/support/system.js';
import { testEnv } from '../../../../test/support/test-env.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { AccountEvents } from './account-events.js';
import { AccountsService, hashKey } from './accounts.service.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { PrincipalCache } from './principal-cache.js';
import { TeamsRepository } from './teams.repository.js';
import { UserEntity } from './user.entity.js';
import { UsersRepository } from './users.repository.js';

/**
 * The one statement authentication reads a key and its user with (`findWithUserByHash`), on real Postgres with the
 * gateway's migrations: it must answer exactly the entities the ORM reads of the same rows, or the cache would hold
 * principals that differ from what the rest of the gateway reads.
 */

let db: TestDatabase;
let admin: pg.Client;
let dataSource: DataSource;
let keys: ApiKeysRepository;
let accounts: AccountsService;
let nats: NatsClient;

beforeAll(async () => {
  db = await createTestDatabase('api_keys_repo', { apps: ['gateway'] });
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2, 'api-keys-repo-test'));
  await dataSource.initialize();
  keys = new ApiKeysRepository(dataSource);
  nats = await NatsClient.connect(testEnv().natsUrl, freshNatsPrefix(), 'api-keys-repo-test');
  accounts = new AccountsService(
    new UsersRepository(dataSource),
    new TeamsRepository(dataSource),
    keys,
    new PrincipalCache(0),
    new AccountEvents(null),
    await accountCommandsOn(dataSource, nats),
  );
});

afterAll(async () => {
  await nats?.drain();
  await dataSource?.destroy();
  await admin?.end();
  await db?.drop();
});

/** What the ORM reads of the key with this hash and of its user (a key of the holder's own account: no team). */
async function readByOrm(keyHash: string) {
  const key = await dataSource.getRepository(ApiKeyEntity).findOneByOrFail({ keyHash });
  const user = await dataSource.getRepository(UserEntity).findOneBy({ id: key.userId });
  return { key, user, team: null };
}

describe('ApiKeysRepository.findWithUserByHash', () => {
  it('answers the key and its user exactly as the ORM reads them', async () => {
    await accounts.createUser('ann', true);
    const scoped = await accounts.createKey('ann', 'endpoints', 'two endpoints', ['ep-1', 'ep-2']);
    const full = await accounts.createKey('ann', 'full', 'everything');
    await accounts.revokeKey(full.record.id);
    for (const issued of [scoped, full]) {
      const found = await keys.findWithUserByHash(hashKey(issued.key));
      expect(found).toStrictEqual(await readByOrm(hashKey(issued.key)));
    }
    const scopedFound = await keys.findWithUserByHash(hashKey(scoped.key));
    expect(scopedFound?.key).toMatchObject({
      scope: 'endpoints',
      endpointIds: ['ep-1', 'ep-2'],
      revokedAt: null,
    });
    expect(scopedFound?.user).toMatchObject({ name: 'ann', rateLimitExempt: true });
    expect((await keys.findWithUserByHash(hashKey(full.key)))?.key.revokedAt).toBeInstanceOf(Date);
  });

  it("answers a team key's team and its holder's role, and no role once the holder left", async () => {
    const owner = await accounts.createUser('tess');
    const member = await accounts.createUser('milo');
    const commands = await accountCommandsOn(dataSource, nats);
    const asOwner = { userId: owner.id, kind: 'user' as const };
    const team = await commands.execute(Subjects.account.createTeam, { name: 'research' }, asOwner);
    await commands.execute(
      Subjects.account.addMember,
      { teamId: team.id, user: 'milo', role: 'basic' },
      asOwner,
    );
    const issued = await accounts.createKey('milo', 'full', 'team key', [], { teamId: team.id });
    expect(issued.record).toMatchObject({ userId: member.id, accountId: team.id });
    expect((await keys.findWithUserByHash(hashKey(issued.key)))?.team).toStrictEqual({
      id: team.id,
      name: 'research',
      role: 'basic',
    });
    expect(await accounts.authenticate(issued.key)).toMatchObject({
      user: { id: member.id },
      account: { id: team.id, kind: 'team' },
      role: 'basic',
    });
    // Removed behind the commands' back (its keys not revoked): the key still finds no role, and is refused.
    await admin.query('DELETE FROM gateway.team_members WHERE user_id = $1', [member.id]);
    expect((await keys.findWithUserByHash(hashKey(issued.key)))?.team?.role).toBeNull();
    expect(await accounts.authenticate(issued.key)).toBe('revoked');
  });

  it("issues a team's workers' key held by the team itself, which authenticates as the team", async () => {
    const owner = await accounts.createUser('wren');
    const commands = await accountCommandsOn(dataSource, nats);
    const team = await commands.execute(
      Subjects.account.createTeam,
      { name: 'inference' },
      { userId: owner.id, kind: 'user' as const },
    );
    const asTeam = { userId: team.id, memberId: owner.id, kind: 'user' as const };
    const issued = await accounts.issueWorkerKey(asTeam, 'ep-team');
    expect(issued.record).toMatchObject({ userId: team.id, accountId: team.id, scope: 'worker' });
    expect(await accounts.authenticate(issued.key)).toMatchObject({
      user: { id: team.id },
      account: { id: team.id, name: 'inference', kind: 'team' },
      role: 'owner',
      key: { endpointIds: ['ep-team'] },
    });
    // A team holds no other key: only its workers' key is held by an account that is not a user.
    await expect(accounts.createKey(team.id, 'full')).rejects.toThrow(/user team_\w+ does not exist/);
  });

  it('answers null for a hash no key has', async () => {
    expect(await keys.findWithUserByHash(hashKey(`cpk_${'z'.repeat(43)}`))).toBeNull();
  });

  it('answers the key with no user when its user row is gone, which authentication refuses', async () => {
    await accounts.createUser('gone');
    const issued = await accounts.createKey('gone', 'full');
    await admin.query(`DELETE FROM gateway.users WHERE name = 'gone'`);
    const found = await keys.findWithUserByHash(hashKey(issued.key));
    expect(found?.key.id).toBe(issued.record.id);
    expect(found?.user).toBeNull();
    expect(await accounts.authenticate(issued.key)).toBe('unknown');
  });
});
