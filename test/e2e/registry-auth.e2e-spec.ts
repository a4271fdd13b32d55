import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { APP_NAMES, PodStatus, type PodView, type TemplateView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import {
  PlacementStandIn,
  client,
  expectProblem,
  readStream,
  waitForPod,
  type Call,
} from './pods.e2e-helpers.js';

/**
 * Container registry credentials: the password is write-only and never stored, logged or recorded in clear; a
 * credential in use by a template or a pod cannot be deleted.
 */
describe('container registry credentials', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let placement: PlacementStandIn;
  let alice: Call;
  let bob: Call;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  let credentialId: string;

  beforeAll(async () => {
    db = await createTestDatabase('registry_auth');
    system = await startApps({
      // endpoint-autoscaler answers whether an endpoint uses a template about to be deleted.
      apps: ['gateway', 'pod-lifecycle', 'endpoint-autoscaler'],
      databaseUrl: db.url,
      env: { LOG_LEVEL: 'debug' },
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    placement = await new PlacementStandIn(system.natsPrefix).start();
    alice = client(system, (await userWithKey(db.url, 'alice')).key);
    bob = client(system, (await userWithKey(db.url, 'bob')).key);
  });

  afterAll(async () => {
    await placement?.stop();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('create → {id, name}; list and get never show the password', async () => {
    const created = await alice<{ id: string; name: string }>('POST', '/v1/containerregistryauth', {
      name: 'ghcr',
      username: 'acme-bot',
      password,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'ghcr' });
    credentialId = created.body.id;
    const list = await alice('GET', '/v1/containerregistryauth');
    expect(list.body).toEqual([{ id: credentialId, name: 'ghcr' }]);
    expect((await alice('GET', `/v1/containerregistryauth/${credentialId}`)).body).toEqual({
      id: credentialId,
      name: 'ghcr',
    });
    expectProblem(await bob('GET', `/v1/containerregistryauth/${credentialId}`), 403);
    expectProblem(await bob('DELETE', `/v1/containerregistryauth/${credentialId}`), 403);
    expectProblem(await alice('DELETE', '/v1/containerregistryauth/nope'), 404);
  });

  it('a template of another user cannot use it (403)', async () => {
    expectProblem(
      await bob('POST', '/v1/templates', {
        name: 't',
        imageName: 'x',
        containerRegistryAuthId: credentialId,
      }),
      403,
    );
  });

  it('delete while a template uses it → 400 and it is still there; while a pod uses it → 400; then 204 → 404', async () => {
    const template = await alice<TemplateView>('POST', '/v1/templates', {
      name: 'private',
      imageName: 'ghcr.io/acme/private:1',
      containerRegistryAuthId: credentialId,
    });
    expect(template.status).toBe(201);
    expectProblem(
      await alice('DELETE', `/v1/containerregistryauth/${credentialId}`),
      400,
      new RegExp(`used by template ${template.body.id}`),
    );
    expect((await alice('GET', `/v1/containerregistryauth/${credentialId}`)).status).toBe(200);

    // A pod pulling the private image with it: the runtime opens the password to pull, and the pod runs.
    const pod = await alice<PodView>('POST', '/v1/pods', {
      name: 'private-pod',
      imageName: 'ghcr.io/acme/private:1',
      gpuTypeId: 'NVIDIA L4',
      containerRegistryAuthId: credentialId,
    });
    expect(pod.status).toBe(201);
    expect(pod.body.containerRegistryAuthId).toBe(credentialId);
    await waitForPod(alice, pod.body.id, PodStatus.Running);

    expect((await alice('DELETE', `/v1/templates/${template.body.id}`)).status).toBe(204);
    expectProblem(
      await alice('DELETE', `/v1/containerregistryauth/${credentialId}`),
      400,
      new RegExp(`used by pod ${pod.body.id}`),
    );
    expect((await alice('DELETE', `/v1/pods/${pod.body.id}`)).status).toBe(204);

    const deleted = await alice('DELETE', `/v1/containerregistryauth/${credentialId}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectProblem(await alice('GET', `/v1/containerregistryauth/${credentialId}`), 404);
  });

  it('the password is nowhere: not in any table, not in the logs, not in the recorded commands or events', async () => {
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      const tables = await sql.query<{ table_schema: string; table_name: string }>(
        `SELECT table_schema, table_name FROM information_schema.tables
          WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
      );
      expect(tables.rows.map((t) => t.table_name)).toEqual(
        expect.arrayContaining(['registry_auths', 'pods', 'templates']),
      );
      for (const { table_schema, table_name } of tables.rows) {
        const dump = await sql.query<{ row: string }>(
          `SELECT t::text AS row FROM "${table_schema}"."${table_name}" t`,
        );
        const hits = dump.rows.filter((r) => r.row.includes(password));
        expect({ table: `${table_schema}.${table_name}`, hits }).toEqual({
          table: `${table_schema}.${table_name}`,
          hits: [],
        });
      }
    } finally {
      await sql.end();
    }

    for (const app of system.apps) {
      expect(system.logs(app).length).toBeGreaterThan(0);
      expect({ app, leaked: system.logs(app).includes(password) }).toEqual({ app, leaked: false });
    }
    expect(APP_NAMES).toEqual(expect.arrayContaining([...system.apps]));

    const commands = await readStream(`${system.natsPrefix}_COMMANDS`);
    expect(commands.map((c) => c.subject)).toEqual(
      expect.arrayContaining([
        `${system.natsPrefix}.registry-auth.cmd.create`,
        `${system.natsPrefix}.pod.cmd.create`,
      ]),
    );
    expect(commands.filter((c) => c.data.includes(password))).toEqual([]);
    const events = await readStream(`${system.natsPrefix}_EVENTS`);
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.data.includes(password))).toEqual([]);
  });
});
