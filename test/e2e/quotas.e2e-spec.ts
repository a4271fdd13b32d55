import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreatedApiKey, QuotaHistoryView, QuotaListView, QuotaView, TeamView } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { client, expectProblem, type Call, type Reply } from './pods.e2e-helpers.js';

const A4000 = 'NVIDIA RTX A4000';

/**
 * Team GPU quotas at the edge (docs/api.md, "Quotas") against the gateway, the cluster scheduler that keeps them and
 * pod-lifecycle: operators set a team's quota and the default, the team's members read it with what they hold, and
 * nobody else sees or changes it.
 */
describe('team GPU quotas, through the gateway', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: TestKey;
  let bob: TestKey;
  let carol: TestKey;
  let operatorKey: string;
  let team: TeamView;
  let other: TeamView;
  /** Bob's key for the team (a basic member). */
  let bobTeamKey: string;

  const as = (key: string): Call => client(system, key);
  const quotaPath = (id: string) => `/v2/teams/${id}/quota`;
  /** A 422 with one `errors` entry per pattern, each naming the field as the body has it. */
  const invalid = (reply: Reply<unknown>, errors: RegExp[]) => {
    expectProblem(reply, 422);
    const sent = (reply.body as { errors?: string[] }).errors ?? [];
    expect(sent).toHaveLength(errors.length);
    expect(sent).toEqual(expect.arrayContaining(errors.map((e) => expect.stringMatching(e))));
  };

  beforeAll(async () => {
    db = await createTestDatabase('quotas');
    system = await startApps({
      databaseUrl: db.url,
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      appEnv: {
        gateway: { RATE_LIMITS_ENABLED: 'false' },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((n) => userWithKey(db.url, n)));
    await keysCli(db.url, ['user', 'create', 'ops']);
    operatorKey = (
      JSON.parse(await keysCli(db.url, ['key', 'create', 'ops', '--scope', 'operator', '--json'])) as TestKey
    ).key;
    team = (await as(alice.key)<TeamView>('POST', '/v2/teams', { name: 'vision' })).body;
    other = (await as(carol.key)<TeamView>('POST', '/v2/teams', { name: 'speech' })).body;
    expect(
      (await as(alice.key)('POST', `/v2/teams/${team.id}/members`, { user: 'bob', role: 'basic' })).status,
    ).toBe(201);
    bobTeamKey = (
      await as(bob.key)<CreatedApiKey>('POST', '/v2/account/api-keys', {
        name: 'bob for vision',
        scope: 'full',
        teamId: team.id,
      })
    ).body.key;
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('lets only operators set a quota, for a team that exists; the body is checked in its own words', async () => {
    const body = { cohort: 'research', limits: [{ gpuTypeId: A4000, gpus: 1, borrowingLimit: 0 }] };
    for (const key of [alice.key, bobTeamKey, carol.key]) {
      expectProblem(await as(key)('PUT', quotaPath(team.id), body), 403, /operators'/);
      expectProblem(await as(key)('DELETE', quotaPath(team.id)), 403, /operators'/);
    }
    expectProblem(
      await as(operatorKey)('PUT', quotaPath('team_none'), body),
      404,
      /team team_none does not exist/,
    );
    invalid(
      await as(operatorKey)('PUT', quotaPath(team.id), {
        cohort: 'Not A Cohort',
        limits: [{ gpuTypeId: '', gpus: -1, colour: 'blue' }],
      }),
      [
        /^cohort must be lower-case letters/,
        /^limits\.0\.colour/,
        /^limits\.0\.gpuTypeId/,
        /^limits\.0\.gpus/,
      ],
    );
    const noLimits = await as(operatorKey)('PUT', quotaPath(team.id), { cohort: null });
    expectProblem(noLimits, 422);
    expect((noLimits.body as { errors: string[] }).errors.every((e) => e.startsWith('limits'))).toBe(true);

    const set = await as(operatorKey)<QuotaView>('PUT', quotaPath(team.id), body);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      accountId: team.id,
      accountName: 'vision',
      source: 'account',
      cohort: 'research',
      limits: [{ gpuTypeId: A4000, dataCenterId: null, gpus: 1, borrowingLimit: 0, inUse: 0, borrowed: 0 }],
      preempted: { lastMinute: 0, total: 0 },
    });
  });

  it("lets the team's members and operators read it, with what the team holds; nobody else", async () => {
    const aliceTeamKey = (
      await as(alice.key)<CreatedApiKey>('POST', '/v2/account/api-keys', {
        name: 'alice for vision',
        scope: 'full',
        teamId: team.id,
      })
    ).body.key;
    // The team holds the one GPU its quota allows; a second is refused, naming the team.
    const pod = { image: 'runpod/base:0.6.2', gpu: { id: A4000, count: 1 } };
    expect((await as(aliceTeamKey)('POST', '/v2/pods', { ...pod, name: 'in-quota' })).status).toBe(201);
    expectProblem(await as(aliceTeamKey)('POST', '/v2/pods', { ...pod, name: 'over' }), 409, /vision/);

    for (const key of [alice.key, bob.key, bobTeamKey, aliceTeamKey, operatorKey]) {
      const read = await as(key)<QuotaView>('GET', quotaPath(team.id));
      expect({ status: read.status, limits: read.body.limits }).toEqual({
        status: 200,
        limits: [expect.objectContaining({ gpuTypeId: A4000, gpus: 1, inUse: 1 })],
      });
    }
    // A team key reads its own team's quota as the account's.
    expect((await as(bobTeamKey)<QuotaView>('GET', '/v2/account/quota')).body).toMatchObject({
      accountId: team.id,
      source: 'account',
    });
    // Not a member, or a key of another team: the team does not exist for them.
    expectProblem(await as(carol.key)('GET', quotaPath(team.id)), 404, /team .* does not exist/);
    expectProblem(await as(carol.key)('GET', `${quotaPath(team.id)}/history`), 404);
    expectProblem(await as(bobTeamKey)('GET', quotaPath(other.id)), 404);
  });

  it("answers the team's history over a window of a minute to a week, and refuses any other", async () => {
    const history = await as(bob.key)<QuotaHistoryView>(
      'GET',
      `${quotaPath(team.id)}/history?windowSeconds=600`,
    );
    expect(history.status).toBe(200);
    expect(history.body).toEqual({ accountId: team.id, samples: expect.any(Array) });
    for (const sample of history.body.samples) {
      expect(sample).toEqual({
        at: expect.any(String),
        gpuTypeId: A4000,
        dataCenterId: null,
        gpus: 1,
        inUse: expect.any(Number),
        borrowed: expect.any(Number),
        lent: expect.any(Number),
      });
    }
    for (const window of ['59', '604801', 'hour', '1.5']) {
      invalid(await as(bob.key)('GET', `${quotaPath(team.id)}/history?windowSeconds=${window}`), [
        /^windowSeconds must be a whole number of seconds from 60 to 604800/,
      ]);
    }
  });

  it('keeps a default for every account without its own; operators list them all', async () => {
    const defaultBody = { limits: [{ gpuTypeId: A4000, gpus: 4 }] };
    expectProblem(await as(alice.key)('PUT', '/v2/quotas/default', defaultBody), 403, /operators'/);
    expectProblem(await as(alice.key)('GET', '/v2/quotas'), 403, /operators'/);
    const set = await as(operatorKey)<QuotaView>('PUT', '/v2/quotas/default', defaultBody);
    expect(set.body).toMatchObject({ accountId: '*', source: 'default', cohort: null });
    expect((await as(operatorKey)<QuotaView>('GET', '/v2/quotas/default')).body.limits).toEqual([
      expect.objectContaining({ gpuTypeId: A4000, dataCenterId: null, gpus: 4, borrowingLimit: null }),
    ]);
    // The other team has none of its own: the default applies to it, as to carol's own account.
    expect((await as(carol.key)<QuotaView>('GET', quotaPath(other.id))).body).toMatchObject({
      accountId: other.id,
      source: 'default',
      limits: [expect.objectContaining({ gpus: 4 })],
    });
    expect((await as(carol.key)<QuotaView>('GET', '/v2/account/quota')).body).toMatchObject({
      accountId: carol.userId,
      source: 'default',
    });
    const list = await as(operatorKey)<QuotaListView>('GET', '/v2/quotas');
    expect(list.body.default).toMatchObject({ accountId: '*' });
    expect(list.body.quotas.map((q) => [q.accountId, q.accountName, q.source])).toEqual([
      [team.id, 'vision', 'account'],
    ]);
  });

  it("clears a team's quota (the default applies again) and the default (unlimited)", async () => {
    expect((await as(operatorKey)('DELETE', quotaPath(team.id))).status).toBe(204);
    expect((await as(alice.key)<QuotaView>('GET', quotaPath(team.id))).body).toMatchObject({
      source: 'default',
      cohort: null,
    });
    expect((await as(operatorKey)('DELETE', '/v2/quotas/default')).status).toBe(204);
    expect((await as(alice.key)<QuotaView>('GET', quotaPath(team.id))).body).toMatchObject({
      source: 'none',
      limits: [],
    });
    expect((await as(operatorKey)<QuotaListView>('GET', '/v2/quotas')).body).toEqual({
      default: null,
      quotas: [],
    });
    expectProblem(await as(operatorKey)('DELETE', quotaPath('team_none')), 404);
  });
});
