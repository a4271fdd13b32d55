import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  ApiKeyList,
  CreatedApiKey,
  PodV2List,
  PodV2View,
  TeamList,
  TeamMemberList,
  TeamMemberView,
  TeamView,
  UserList,
  UserView,
} from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';
import { graphqlClient } from './graphql.e2e-helpers.js';
import { client, expectProblem, type Call, type Reply } from './pods.e2e-helpers.js';

/**
 * Teams (docs/api.md, "Teams and roles") against the running gateway (two replicas) and pod-lifecycle: a team
 * owns what its members make with its keys, each member's key does what its role allows, a removed member's key
 * stops on both replicas, and the last owner stays.
 */
describe('teams, members and their keys', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: TestKey;
  let bob: TestKey;
  let carol: TestKey;
  let dana: TestKey;
  let team: TeamView;
  /** The team keys, by member. */
  const teamKeys: Record<string, string> = {};

  const as = (key: string): Call => client(system, key);
  const onReplica = <T>(key: string, replica: number, method: string, path: string, body?: unknown) =>
    api<T>(system.url('gateway', replica), key, method, path, body);
  const pod = (name: string) => ({
    name,
    image: 'runpod/base:0.6.2',
    gpu: { id: 'NVIDIA RTX A4000', count: 1 },
  });
  /** A 422 whose `errors` name the field as the caller sent it. */
  const invalid = (reply: Reply<unknown>, error: RegExp) => {
    expectProblem(reply, 422);
    expect((reply.body as { errors?: string[] }).errors).toEqual([expect.stringMatching(error)]);
  };

  async function teamKey(member: TestKey, name: string): Promise<string> {
    const made = await as(member.key)<CreatedApiKey>('POST', '/v2/account/api-keys', {
      name,
      scope: 'full',
      teamId: team.id,
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ teamId: team.id, scope: 'full' });
    return made.body.key;
  }

  beforeAll(async () => {
    db = await createTestDatabase('teams');
    // Every owner app: a team's delete asks each what the team still owns.
    system = await startApps({
      databaseUrl: db.url,
      replicas: { gateway: 2 },
      // Far longer than the test: a replica refuses a removed member's key only because it was told.
      appEnv: {
        gateway: { AUTH_CACHE_TTL_MS: '300000' },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
      },
    });
    [alice, bob, carol, dana] = await Promise.all(
      ['alice', 'bob', 'carol', 'dana'].map((n) => userWithKey(db.url, n)),
    );
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('creates a team whose creator is its owner, and refuses a name taken by a user or a team', async () => {
    const made = await as(alice.key)<TeamView>('POST', '/v2/teams', { name: 'research' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^team_/),
      name: 'research',
      createdAt: expect.any(String),
      role: 'owner',
      members: 1,
    });
    team = made.body;
    expectProblem(await as(bob.key)('POST', '/v2/teams', { name: 'research' }), 409, /team named research/);
    expectProblem(await as(bob.key)('POST', '/v2/teams', { name: 'carol' }), 409, /user named carol/);
    invalid(await as(bob.key)('POST', '/v2/teams', { name: 'no spaces' }), /name must be/);
  });

  it('adds members with one role each; a second add, an unknown role or user is refused by name', async () => {
    const add = (user: string, role: string) =>
      as(alice.key)<TeamMemberView>('POST', `/v2/teams/${team.id}/members`, { user, role });
    expect((await add('bob', 'dev')).body).toMatchObject({ userId: bob.userId, name: 'bob', role: 'dev' });
    expect((await add(carol.userId, 'basic')).status).toBe(201);
    expect((await add('dana', 'billing')).status).toBe(201);
    expectProblem(await add('bob', 'admin'), 409, /bob is already a member of team research, as dev/);
    expectProblem(await add('erin', 'dev'), 404, /user erin does not exist/);
    invalid(await add('bob', 'superuser'), /role must be one of owner, admin, dev, billing, basic/);
    const members = await as(bob.key)<TeamMemberList>('GET', `/v2/teams/${team.id}/members`);
    expect(members.body.members.map((m) => [m.name, m.role])).toEqual([
      ['alice', 'owner'],
      ['bob', 'dev'],
      ['carol', 'basic'],
      ['dana', 'billing'],
    ]);
    const listed = await as(bob.key)<TeamList>('GET', '/v2/teams');
    expect(listed.body.teams).toEqual([{ ...team, role: 'dev', members: 4 }]);
  });

  it("a member's team key acts for the team: what it makes is the team's, within the member's role", async () => {
    for (const [name, member] of Object.entries({ alice, bob, carol, dana })) {
      teamKeys[name] = await teamKey(member, `${name} for research`);
    }
    const made = await as(teamKeys.bob)<PodV2View>('POST', '/v2/pods', pod('team-pod'));
    expect(made.status).toBe(201);
    // The team's, not bob's: his own key does not see it, alice's team key does.
    expect((await as(bob.key)<PodV2List>('GET', '/v2/pods')).body.pods).toEqual([]);
    expect((await as(teamKeys.alice)<PodV2List>('GET', '/v2/pods')).body.pods.map((p) => p.id)).toEqual([
      made.body.id,
    ]);
    // basic reads pods, creates none; billing reads none.
    expect((await as(teamKeys.carol)<PodV2List>('GET', '/v2/pods')).status).toBe(200);
    expectProblem(
      await as(teamKeys.carol)('POST', '/v2/pods', pod('not-basic')),
      403,
      /your role in team research is basic: it may not change pods/,
    );
    expectProblem(await as(teamKeys.dana)('GET', '/v2/pods'), 403, /is billing: it may not read pods/);
    expect((await as(teamKeys.dana)('GET', '/v2/billing/pods')).status).toBe(200);
    // GraphQL's `myself` answers for the key's account: the team's pods, as RunPod's clients read them.
    const gql = await graphqlClient(
      system,
      teamKeys.carol,
    )<{ myself: { id: string; pods: { id: string }[] } }>('query { myself { id pods { id } } }');
    expect(gql.body.data?.myself).toEqual({ id: team.id, pods: [{ id: made.body.id }] });
    const billingGql = await graphqlClient(system, teamKeys.dana)('query { myself { pods { id } } }');
    expect(JSON.stringify(billingGql.body.errors)).toMatch(/is billing: it may not read pods/);
    // A team key lists only its own keys of the team.
    const keys = await as(teamKeys.bob)<ApiKeyList>('GET', '/v2/account/api-keys');
    expect(keys.body.apiKeys.map((k) => [k.name, k.teamId])).toEqual([['bob for research', team.id]]);
  });

  it('refuses to demote or remove the last owner, and lets only owners make owners', async () => {
    const path = `/v2/teams/${team.id}/members/${alice.userId}`;
    expectProblem(
      await as(alice.key)('PATCH', path, { role: 'admin' }),
      409,
      /alice is the last owner of team research/,
    );
    expectProblem(await as(alice.key)('DELETE', path), 409, /last owner/);
    await as(alice.key)('PATCH', `/v2/teams/${team.id}/members/${carol.userId}`, { role: 'admin' });
    expectProblem(
      await as(carol.key)('PATCH', `/v2/teams/${team.id}/members/${bob.userId}`, { role: 'owner' }),
      403,
      /only an owner may give or take away the role owner/,
    );
    expectProblem(await as(bob.key)('PATCH', `/v2/teams/${team.id}`, { name: 'renamed' }), 403, /is dev/);
    expect(
      (await as(carol.key)<TeamView>('PATCH', `/v2/teams/${team.id}`, { name: 'ml-research' })).body,
    ).toMatchObject({ name: 'ml-research', role: 'admin' });
  });

  it("revokes a removed member's team keys on both replicas within a second; a key for a team left is refused", async () => {
    for (const replica of [0, 1]) {
      expect((await onReplica(teamKeys.bob, replica, 'GET', '/v2/pods')).status).toBe(200);
    }
    const removed = await as(carol.key)('DELETE', `/v2/teams/${team.id}/members/${bob.userId}`);
    expect(removed.status).toBe(204);
    const started = Date.now();
    for (const replica of [0, 1]) {
      let status = 200;
      while (status !== 401 && Date.now() - started < 2000) {
        status = (await onReplica(teamKeys.bob, replica, 'GET', '/v2/pods')).status;
      }
      expect(status).toBe(401);
    }
    expect(Date.now() - started).toBeLessThan(1000);
    expectProblem(
      await as(bob.key)('POST', '/v2/account/api-keys', { name: 'again', scope: 'full', teamId: team.id }),
      404,
      /bob is not a member of team/,
    );
    // Not a member: the team does not exist for him.
    expectProblem(await as(bob.key)('GET', `/v2/teams/${team.id}`), 404);
  });

  it('refuses to delete a team that owns live resources, names them, and deletes it once they are gone', async () => {
    expectProblem(
      await as(alice.key)('DELETE', `/v2/teams/${team.id}`),
      400,
      /team ml-research still owns 1 pod: terminate or delete them first/,
    );
    const [teamPod] = (await as(teamKeys.alice)<PodV2List>('GET', '/v2/pods')).body.pods;
    expect((await as(teamKeys.alice)('DELETE', `/v2/pods/${teamPod.id}`)).status).toBe(204);
    expectProblem(await as(carol.key)('DELETE', `/v2/teams/${team.id}`), 403, /only an owner deletes it/);
    expect((await as(alice.key)('DELETE', `/v2/teams/${team.id}`)).status).toBe(204);
    expect((await as(teamKeys.alice)('GET', '/v2/pods')).status).toBe(401);
    expect((await as(alice.key)<TeamList>('GET', '/v2/teams')).body.teams).toEqual([]);
  });

  it('an operator key (keys CLI only) lists and manages every team; the CLI names a wrong value', async () => {
    const ops = JSON.parse(
      await keysCli(db.url, ['key', 'create', 'dana', '--scope', 'operator', '--json']),
    ) as {
      key: string;
    };
    const other = await as(bob.key)<TeamView>('POST', '/v2/teams', { name: 'bobs' });
    const listed = await as(ops.key)<TeamList>('GET', '/v2/teams');
    expect(listed.body.teams.map((t) => [t.name, t.role])).toEqual([['bobs', undefined]]);
    expect(
      (await as(ops.key)('POST', `/v2/teams/${other.body.id}/members`, { user: 'carol', role: 'basic' }))
        .status,
    ).toBe(201);
    invalid(
      await as(alice.key)('POST', '/v2/account/api-keys', { name: 'x', scope: 'operator' }),
      /scope must be/,
    );
    await expect(keysCli(db.url, ['key', 'create', 'dana', '--scope', 'root'])).rejects.toThrow(
      /unknown scope 'root': one of full, read, endpoints, worker, operator/,
    );
    await expect(keysCli(db.url, ['key', 'create', 'nobody'])).rejects.toThrow(/user nobody does not exist/);
    // The operators' user routes: every user, disabled and enabled again; no other key reaches them.
    const users = await as(ops.key)<UserList>('GET', '/v2/users');
    expect(users.body.users.map((u) => u.name).sort()).toEqual(['alice', 'bob', 'carol', 'dana']);
    expectProblem(await as(alice.key)('GET', '/v2/users'), 403, /operators'/);
    const off = await as(ops.key)<UserView>('PATCH', `/v2/users/${carol.userId}`, { disabled: true });
    expect(off.body).toMatchObject({ name: 'carol', disabled: true });
    expectProblem(await as(carol.key)('GET', '/v2/pods'), 401, /user is disabled/);
    expect((await as(ops.key)('PATCH', '/v2/users/carol', { disabled: false })).status).toBe(200);
    expectProblem(await as(ops.key)('DELETE', '/v2/users/bob'), 409, /last owner of team\(s\) bobs/);
  });

  it('the keys CLI disables, lists by user name, and deletes a user; a last owner stays', async () => {
    await keysCli(db.url, ['user', 'disable', 'carol']);
    expectProblem(await as(carol.key)('GET', '/v2/pods'), 401, /user is disabled/);
    await keysCli(db.url, ['user', 'disable', 'carol', '--off']);
    expect((await as(carol.key)('GET', '/v2/pods')).status).toBe(200);
    const listed = await keysCli(db.url, ['key', 'list', 'carol']);
    expect(listed.split('\n').every((line) => line.split('\t')[1] === 'carol')).toBe(true);
    await expect(keysCli(db.url, ['user', 'delete', 'bob'])).rejects.toThrow(
      /bob is the last owner of team\(s\) bobs/,
    );
    await keysCli(db.url, ['user', 'delete', 'carol']);
    expectProblem(await as(carol.key)('GET', '/v2/pods'), 401);
    expect(
      (
        await as(bob.key)<TeamMemberList>(
          'GET',
          `/v2/teams/${(await as(bob.key)<TeamList>('GET', '/v2/teams')).body.teams[0].id}/members`,
        )
      ).body.members.map((m) => m.name),
    ).toEqual(['bob']);
  });
});
