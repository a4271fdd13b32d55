import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import type { PodView, SealedEnv, TemplateView } from '@app/contracts';
import { SecretBox } from '@app/platform';
import { userWithKey } from '../support/accounts.js';
import {
  GATEWAY_ORIGIN,
  TEST_REGISTRY_AUTH_KEYS,
  TEST_WORKER_KEY_RING,
  deleteStreams,
  startApps,
  type RunningSystem,
} from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { testEnv } from '../support/test-env.js';
import { client, type Call } from './pods.e2e-helpers.js';

/** Where a needle was found: `schema.table` (rows) or `stream #seq subject`. */
type Hits = string[];

/** Every row of every table of every schema (other than Postgres' own) whose text form contains `needle`. */
async function searchDatabase(databaseUrl: string, needle: string): Promise<Hits> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const tables = await db.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const hits: Hits = [];
    for (const { schema, name } of tables.rows) {
      const table = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
      const found = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${table} t WHERE strpos(t::text, $1) > 0`,
        [needle],
      );
      if (Number(found.rows[0].n) > 0) hits.push(`${schema}.${name} (${found.rows[0].n} rows)`);
    }
    return hits;
  } finally {
    await db.end();
  }
}

/** Every message (body and headers) of every JetStream stream of the system's prefix containing `needle`. */
async function searchStreams(jsm: JetStreamManager, prefix: string, needle: string): Promise<Hits> {
  const hits: Hits = [];
  for await (const info of jsm.streams.list()) {
    const name = info.config.name;
    if (!name.startsWith(`${prefix}_`) && !name.startsWith(`KV_${prefix}_`)) continue;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const message = await jsm.streams.getMessage(name, { seq }).catch(() => null);
      if (!message) continue; // deleted
      const headers = message.header ? JSON.stringify([...message.header]) : '';
      if (`${message.string()}\n${headers}`.includes(needle)) hits.push(`${name} #${seq} ${message.subject}`);
    }
  }
  return hits;
}

/**
 * No secret the platform injects is ever at rest in plaintext or on the bus in plaintext (docs/adr/0015): a
 * serverless endpoint's workers' key (RUNPOD_AI_API_KEY) and a registry password go through the real flow (the
 * gateway mints and seals, the autoscaler starts a worker pod, pod-lifecycle runs it through the local runtime and
 * the worker authenticates with the key it was given), then every table of every schema and every message of
 * every stream is searched for them; so is an endpoint's webhook signing secret.
 */
describe('secrets at rest and on the bus', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let key: string;
  let userId: string;
  let call: Call;
  let dir: string;
  const password = `regpw-${randomBytes(16).toString('hex')}`;
  /** The endpoint the first test created, its workers' key sealed with the workers' ring. */
  let endpointWithKey: string;

  /** The workers' key of an endpoint as stored: in its row, and in each of its worker pods' secret variables. */
  async function sealedWorkerKeys(endpointId: string): Promise<{ sealed: string; context: string }[]> {
    const database = new pg.Client({ connectionString: db.url });
    await database.connect();
    try {
      const endpoint = await database.query<{ ai_key_sealed: string }>(
        'SELECT ai_key_sealed FROM endpoint_autoscaler.endpoints WHERE id = $1',
        [endpointId],
      );
      const pods = await database.query<{ secret_env: SealedEnv }>(
        `SELECT secret_env FROM pod_lifecycle.pods WHERE env->>'RUNPOD_ENDPOINT_ID' = $1`,
        [endpointId],
      );
      return [
        ...endpoint.rows.map((row) => ({ sealed: row.ai_key_sealed, context: endpointId })),
        ...pods.rows.map((row) => row.secret_env.RUNPOD_AI_API_KEY),
      ];
    } finally {
      await database.end();
    }
  }
  const username = `robot-${randomBytes(4).toString('hex')}`;

  async function graphql<T>(query: string): Promise<T> {
    const response = await fetch(`${system.url('gateway')}/graphql?api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
    if (body.errors) throw new Error(`GraphQL: ${body.errors.map((e) => e.message).join('; ')}`);
    return body.data!;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpucp-secrets-e2e-'));
    db = await createTestDatabase('secrets_at_rest');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        // The repository's catalog: gpucp/echo-worker is the worker SDK's echo worker, a real RunPod worker.
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
        },
        'endpoint-autoscaler': {
          AUTOSCALER_TICK_MS: '200',
          QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
          WORKER_PING_INTERVAL_MS: '1000',
        },
      },
    });
    ({ key, userId } = await userWithKey(db.url, 'secretive'));
    call = client(system, key);
    nc = await connect({ servers: testEnv().natsUrl.split(','), timeout: 5000 });
    jsm = await jetstreamManager(nc, { timeout: 5000 });
  });

  afterAll(async () => {
    await nc?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a worker gets its key and runs a job, yet neither the key nor a registry password is anywhere in clear', async () => {
    const credential = await call<{ id: string }>('POST', '/v1/containerregistryauth', {
      name: 'private-registry',
      username,
      password,
    });
    expect(credential.status).toBe(201);
    const template = await call<TemplateView>('POST', '/v1/templates', {
      name: 'echo',
      imageName: 'gpucp/echo-worker',
      isServerless: true,
      containerRegistryAuthId: credential.body.id,
    });
    expect(template.status).toBe(201);
    const saved = await graphql<{ saveEndpoint: { id: string } }>(
      `mutation { saveEndpoint(input: { name: "sealed", templateId: "${template.body.id}", gpuIds: "AMPERE_16", workersMin: 1, workersMax: 1, idleTimeout: 60 }) { id } }`,
    );
    const endpointId = saved.saveEndpoint.id;

    // The worker authenticates its job-take and job-done with RUNPOD_AI_API_KEY: a COMPLETED job proves it got the
    // right key in clear at run time.
    const run = await call<{ status: string; output?: unknown }>(
      'POST',
      `/v2/${endpointId}/runsync?wait=60000`,
      { input: { hello: 'sealed' } },
    );
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'COMPLETED', output: { hello: 'sealed' } });

    const listed = await graphql<{ myself: { endpoints: { id: string; aiKey: string | null }[] } }>(
      'query { myself { endpoints { id aiKey } } }',
    );
    const workerKey = listed.myself.endpoints.find((e) => e.id === endpointId)?.aiKey;
    expect(workerKey).toMatch(/^\S{20,}$/);

    // The endpoint's webhook signing secret: drawn by the gateway, recorded and kept sealed by the broker.
    const webhook = await call<{ secret: string }>('GET', `/v2/${endpointId}/webhook-secret`);
    expect(webhook.status).toBe(200);
    const webhookSecret = webhook.body.secret.slice('whsec_'.length);
    expect((await searchStreams(jsm, system.natsPrefix, endpointId)).join('\n')).toContain(
      'job.cmd.rotate-webhook-secret',
    );

    // The searches find what is stored in clear (so an empty answer below means something).
    expect(await searchDatabase(db.url, username)).toContain('pod_lifecycle.registry_auths (1 rows)');
    expect((await searchStreams(jsm, system.natsPrefix, username)).join('\n')).toContain(
      'registry-auth.cmd.create',
    );
    expect((await searchStreams(jsm, system.natsPrefix, endpointId)).join('\n')).toContain('pod.cmd.create');

    expect({
      workerKey: {
        tables: await searchDatabase(db.url, workerKey!),
        streams: await searchStreams(jsm, system.natsPrefix, workerKey!),
      },
      registryPassword: {
        tables: await searchDatabase(db.url, password),
        streams: await searchStreams(jsm, system.natsPrefix, password),
      },
      webhookSecret: {
        tables: await searchDatabase(db.url, webhookSecret),
        streams: await searchStreams(jsm, system.natsPrefix, webhookSecret),
      },
    }).toEqual({
      workerKey: { tables: [], streams: [] },
      registryPassword: { tables: [], streams: [] },
      webhookSecret: { tables: [], streams: [] },
    });

    // The key is sealed with the workers' ring (its key id, w1), in the endpoint and in its worker pod alike, and
    // the registry ring does not open it (ADR 30).
    const stored = await sealedWorkerKeys(endpointId);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    for (const sealed of stored) {
      expect(sealed.sealed).toMatch(/^v1\.w1\./);
      expect(new SecretBox(TEST_WORKER_KEY_RING).open(sealed.sealed, sealed.context)).toBe(workerKey);
      expect(() => new SecretBox(TEST_REGISTRY_AUTH_KEYS).open(sealed.sealed, sealed.context)).toThrow();
    }
    endpointWithKey = endpointId;
  });

  it("still opens an endpoint's workers' key sealed with the registry ring before the workers' ring existed", async () => {
    const olderKey = `cpk_older_${randomBytes(12).toString('hex')}`;
    const database = new pg.Client({ connectionString: db.url });
    await database.connect();
    try {
      // The row as the previous release sealed it: with REGISTRY_AUTH_KEYS (key id k1), bound to the endpoint.
      await database.query('UPDATE endpoint_autoscaler.endpoints SET ai_key_sealed = $2 WHERE id = $1', [
        endpointWithKey,
        new SecretBox(TEST_REGISTRY_AUTH_KEYS).seal(olderKey, endpointWithKey),
      ]);
    } finally {
      await database.end();
    }
    const listed = await graphql<{ myself: { endpoints: { id: string; aiKey: string | null }[] } }>(
      'query { myself { endpoints { id aiKey } } }',
    );
    expect(listed.myself.endpoints.find((e) => e.id === endpointWithKey)?.aiKey).toBe(olderKey);
  });

  it("seals the workers' keys an older release stored in clear, once pod-lifecycle restarts", async () => {
    const podId = `legacy-${randomBytes(4).toString('hex')}`;
    const legacyKey = `cpk_legacy_${randomBytes(12).toString('hex')}`;
    const env = {
      RUNPOD_WEBHOOK_PING: 'http://gw/v2/ep-gone/ping/$RUNPOD_POD_ID',
      RUNPOD_ENDPOINT_ID: 'ep-gone',
      RUNPOD_AI_API_KEY: legacyKey,
    };
    const database = new pg.Client({ connectionString: db.url });
    await database.connect();
    try {
      // The row as the previous release wrote it (env with the key in clear, no secret_env yet).
      await database.query(
        `INSERT INTO pod_lifecycle.pods (id, owner_id, name, image, env, ports, port_mappings, container_disk_gb,
           gpu_count, status, desired_status, generation, disk_epoch, last_status_change, created_at)
         VALUES ($1, $2, 'old-worker', 'gpucp/echo-worker', $3, '[]', '{}', 20, 1, 'EXITED', 'EXITED', 1, 0, now(), now())`,
        [podId, userId, JSON.stringify(env)],
      );
      await system.restart('pod-lifecycle');
      const deadline = Date.now() + 20_000;
      type Row = { env: Record<string, string>; secret_env: SealedEnv };
      let row: Row | undefined;
      while (Date.now() < deadline) {
        const result = await database.query<Row>(
          `SELECT env, secret_env FROM pod_lifecycle.pods WHERE id = $1`,
          [podId],
        );
        row = result.rows[0];
        if (row && !('RUNPOD_AI_API_KEY' in row.env)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(Object.keys(row!.env).sort()).toEqual(['RUNPOD_ENDPOINT_ID', 'RUNPOD_WEBHOOK_PING']);
      const sealed = row!.secret_env.RUNPOD_AI_API_KEY;
      expect(sealed.context).toBe(podId);
      // Sealed with the workers' own ring (ADR 30), which the registry ring cannot open.
      expect(sealed.sealed).toMatch(/^v1\.w1\./);
      expect(new SecretBox(TEST_WORKER_KEY_RING).open(sealed.sealed, sealed.context)).toBe(legacyKey);
      expect(() => new SecretBox(TEST_REGISTRY_AUTH_KEYS).open(sealed.sealed, sealed.context)).toThrow();
    } finally {
      await database.end();
    }
    const pod = await call<PodView>('GET', `/v1/pods/${podId}`);
    expect(pod.body.env.RUNPOD_AI_API_KEY).toBe('********');
    expect((await searchStreams(jsm, system.natsPrefix, podId)).join('\n')).toContain('pod.cmd.seal-env');
    expect(await searchDatabase(db.url, legacyKey)).toEqual([]);
    expect(await searchStreams(jsm, system.natsPrefix, legacyKey)).toEqual([]);
  });
});
