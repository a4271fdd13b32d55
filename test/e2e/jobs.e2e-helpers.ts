import { request } from 'node:http';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import type { EndpointView, QueryEnvelope } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import {
  deleteStreams,
  freshNatsPrefix,
  startApps,
  type EnvOverrides,
  type RunningSystem,
} from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { testEnv } from '../support/test-env.js';

/**
 * The jobs e2e tests run the gateway and the queue broker as processes, with real Postgres, NATS and worker
 * processes built from @app/worker-sdk. The endpoints they use are answered on `endpoint.qry.get` by a stand-in
 * owner in the test process (the real one is endpoint-autoscaler, which needs pod-lifecycle and the scheduler to
 * save an endpoint): it speaks the same contract, so the gateway cannot tell the difference.
 */
export interface JobsSystem {
  system: RunningSystem;
  db: TestDatabase;
  sql: pg.Client;
  /** A full key of the endpoints' owner. */
  user: TestKey;
  /** A key of scope `worker` for each endpoint. */
  workerKeys: Record<string, string>;
  /** Endpoint ids by name (`lb` is a load-balancing endpoint, every other one queue-based). */
  endpoints: Record<string, string>;
  gateway: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Queue-based endpoints to create besides `qb` (and the load-balancing `lb`). */
  endpoints?: string[];
  env?: EnvOverrides;
  broker?: EnvOverrides;
  gateway?: EnvOverrides;
}

function endpointView(id: string, ownerId: string, type: 'QB' | 'LB'): EndpointView {
  return {
    id,
    ownerId,
    name: id,
    type,
    templateId: 'tpl',
    gpuIds: ['AMPERE_16'],
    gpuCount: 1,
    locations: [],
    idleTimeout: 5,
    scalerType: 'QUEUE_DELAY',
    scalerValue: 4,
    workersMin: 0,
    workersMax: 3,
    flashBoot: false,
    networkVolumeId: null,
    createdAt: new Date().toISOString(),
  };
}

/** Answers `endpoint.qry.get` for the given endpoints as endpoint-autoscaler does (404 unknown, 403 another's). */
async function serveEndpoints(prefix: string, views: EndpointView[]): Promise<NatsConnection> {
  const nc = await connect({ servers: testEnv().natsUrl.split(','), name: 'jobs-test-endpoint-owner' });
  nc.subscribe(`${prefix}.endpoint.qry.get`, {
    queue: 'endpoint-autoscaler',
    callback: (error, msg) => {
      if (error) return;
      const envelope = msg.json<QueryEnvelope>();
      const id = (envelope.payload as { id: string }).id;
      const view = views.find((v) => v.id === id);
      const reply = !view
        ? { ok: false, error: { code: 'NOT_FOUND', message: `endpoint ${id} does not exist` } }
        : view.ownerId !== envelope.actor.userId
          ? { ok: false, error: { code: 'FORBIDDEN', message: `endpoint ${id} belongs to another user` } }
          : { ok: true, value: view };
      msg.respond(JSON.stringify(reply));
    },
  });
  await nc.flush();
  return nc;
}

export async function startJobsSystem(label: string, options: StartOptions = {}): Promise<JobsSystem> {
  const db = await createTestDatabase(label, { apps: ['gateway', 'queue-broker'] });
  const natsPrefix = freshNatsPrefix();
  const user = await userWithKey(db.url, `owner-${label}`);
  const names = ['qb', ...(options.endpoints ?? [])];
  const endpoints: Record<string, string> = { lb: `ep-${label}-lb` };
  for (const name of names) endpoints[name] = `ep-${label}-${name}`;
  const owner = await serveEndpoints(natsPrefix, [
    ...names.map((name) => endpointView(endpoints[name], user.userId, 'QB')),
    endpointView(endpoints.lb, user.userId, 'LB'),
  ]);
  const workerKeys: Record<string, string> = {};
  for (const name of names) {
    const id = endpoints[name];
    const out = await keysCli(db.url, [
      'key',
      'create',
      user.userId,
      '--scope',
      'worker',
      '--endpoints',
      id,
      '--json',
    ]);
    workerKeys[id] = (JSON.parse(out) as TestKey).key;
  }
  const system = await startApps({
    apps: ['gateway', 'queue-broker'],
    databaseUrl: db.url,
    natsPrefix,
    env: { RATE_LIMITS_ENABLED: 'false', ...options.env },
    appEnv: {
      'queue-broker': { SWEEP_INTERVAL_MS: '250', WEBHOOK_RETRY_INTERVAL_MS: '300', ...options.broker },
      gateway: { JOB_POLL_RECHECK_MS: '2000', ...options.gateway },
    },
  });
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  return {
    system,
    db,
    sql,
    user,
    workerKeys,
    endpoints,
    gateway: system.url('gateway'),
    close: async () => {
      await system.stop();
      await sql.end();
      await owner.close();
      await deleteStreams(natsPrefix);
      await db.drop();
    },
  };
}

export interface Reply<T = unknown> {
  status: number;
  contentType: string;
  body: T;
}

/** One HTTP call with the key sent raw (as the interface shows) unless `bearer`. */
export async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  key: string,
  body?: unknown,
  options: { bearer?: boolean; contentType?: string; raw?: string } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { authorization: options.bearer ? `Bearer ${key}` : key };
  let payload: string | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (body !== undefined) payload = JSON.stringify(body);
  if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(url, { method, headers, body: payload });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: parsed as T,
  };
}

/**
 * POSTs a body too large for the route: it declares the full Content-Length but sends only the first 64 KiB, then
 * waits for the answer (the server refuses from the Content-Length alone) and drops the connection. Writing the
 * whole body would race the server closing the connection after its 413 (EPIPE, or no response at all).
 */
export function postLarge(url: string, key: string, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer from ${url} within 30 s`));
    }, 30_000);
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: key,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          req.destroy();
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: JSON.parse(text) as unknown,
          });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') {
        clearTimeout(timer);
        reject(error);
      }
    });
    req.write(body.slice(0, 64 * 1024));
  });
}

/** Polls `fn` until it returns a truthy value. */
export async function eventually<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      last = error as Error;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
