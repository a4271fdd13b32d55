import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SshKeySet, SshKeyView } from '@app/contracts';
import { createKey, userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { sshPublicKey } from './clusters-fixtures.js';
import { errorCode, graphqlClient, type Graphql } from './graphql.e2e-helpers.js';
import { client, expectProblem, type Call } from './pods.e2e-helpers.js';

/** The account's SSH keys through `/v2/account/ssh-keys`, `/v1/user/ssh-keys` and the GraphQL account documents. */
describe('account SSH keys on v2 and GraphQL', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let bob: Call;
  let aliceId: string;
  let aliceGql: Graphql;
  let readGql: Graphql;
  const [k1, k2, k3] = ['one@host', 'two@host', 'three@host'].map((c) => sshPublicKey(c));

  beforeAll(async () => {
    db = await createTestDatabase('account_v2');
    // No endpoint-autoscaler: `myself` documents that do not select endpoints must not need it.
    system = await startApps({
      apps: ['gateway', 'cluster-scheduler'],
      databaseUrl: db.url,
    });
    const aliceKey = await userWithKey(db.url, 'alice');
    aliceId = aliceKey.userId;
    alice = client(system, aliceKey.key);
    bob = client(system, (await userWithKey(db.url, 'bob')).key);
    aliceGql = graphqlClient(system, aliceKey.key);
    readGql = graphqlClient(system, (await createKey(db.url, 'alice', 'read')).key);
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('v2: GET the set, PUT replaces it (kept keys keep their id), 422 for a bad key, [] removes all', async () => {
    expect((await alice('GET', '/v2/account/ssh-keys')).body).toEqual({ keys: [] });
    const registered = await alice<SshKeyView>('POST', '/v1/user/ssh-keys', {
      publicKey: k1,
      name: 'laptop',
    });
    expect(registered.status).toBe(201);

    const put = await alice<SshKeySet>('PUT', '/v2/account/ssh-keys', { keys: [k1, k2, k2] });
    expect(put).toMatchObject({ status: 200, body: { keys: [k1, k2] } });
    expect((await alice('GET', '/v2/account/ssh-keys')).body).toEqual({ keys: [k1, k2] });
    const v1 = await alice<SshKeyView[]>('GET', '/v1/user/ssh-keys');
    expect(v1.body.map((k) => [k.id === registered.body.id, k.name])).toEqual([
      [true, 'laptop'],
      [false, 'two@host'],
    ]);
    expect((await bob('GET', '/v2/account/ssh-keys')).body).toEqual({ keys: [] });

    const forged = `ssh-ed25519 ${Buffer.from('not a key').toString('base64')} x`;
    expectProblem(
      await alice('PUT', '/v2/account/ssh-keys', { keys: [k3, forged] }),
      422,
      /failed validation/,
    );
    expectProblem(await alice('PUT', '/v2/account/ssh-keys', { keys: ['hello'] }), 422);
    expectProblem(await alice('PUT', '/v2/account/ssh-keys', {}), 422);
    expectProblem(await alice('PUT', '/v2/account/ssh-keys', { keys: [k3], extra: 1 }), 422);
    expect((await alice('GET', '/v2/account/ssh-keys')).body).toEqual({ keys: [k1, k2] });

    expect((await alice('PUT', '/v2/account/ssh-keys', { keys: [] })).body).toEqual({ keys: [] });
    expect((await alice('GET', '/v1/user/ssh-keys')).body).toEqual([]);
  });

  it('updateUserSettings and myself verbatim (GraphQL) → read (v2) → delete (v1) → read (GraphQL)', async () => {
    const updated = await aliceGql<{ updateUserSettings: { id: string; pubKey: string } }>(
      `mutation { updateUserSettings(input: { pubKey: "${k1}\\n${k3}" }) { id pubKey } }`,
    );
    expect(updated.body).toEqual({ data: { updateUserSettings: { id: aliceId, pubKey: `${k1}\n${k3}` } } });
    expect((await alice('GET', '/v2/account/ssh-keys')).body).toEqual({ keys: [k1, k3] });

    const keys = await alice<SshKeyView[]>('GET', '/v1/user/ssh-keys');
    expect((await alice('DELETE', `/v1/user/ssh-keys/${keys.body[0].id}`)).status).toBe(204);
    await alice('POST', '/v2/network-volumes', { name: 'v', size: 10, dataCenter: 'US-TX-3' });
    const myself = await readGql<{ myself: Record<string, unknown> }>(
      'query myself { myself { id pubKey networkVolumes { id name size dataCenterId } } }',
    );
    expect(myself.body.errors).toBeUndefined();
    expect(myself.body.data!.myself).toEqual({
      id: aliceId,
      pubKey: k3,
      networkVolumes: [{ id: expect.any(String), name: 'v', size: 10, dataCenterId: 'US-TX-3' }],
    });
  });

  it('updateUserSettings with variables; a bad key changes nothing; a read key may not mutate', async () => {
    const document =
      'mutation Update($input: UpdateUserSettingsInput!) { updateUserSettings(input: $input) { id pubKey } }';
    const bad = await aliceGql(document, { input: { pubKey: `${k2}\nssh-ed25519 AAAA x` } });
    expect(errorCode(bad)).toBe('BAD_USER_INPUT');
    expect((await alice('GET', '/v2/account/ssh-keys')).body).toEqual({ keys: [k3] });
    const refused = await readGql(document, { input: { pubKey: k2 } });
    expect(refused.status).toBe(403);

    const cleared = await aliceGql<{ updateUserSettings: { pubKey: string } }>(document, {
      input: { pubKey: '' },
    });
    expect(cleared.body.data!.updateUserSettings.pubKey).toBe('');
    expect((await alice('GET', '/v2/account/ssh-keys')).body).toEqual({ keys: [] });
  });
});
