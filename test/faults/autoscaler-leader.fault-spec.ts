import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { leaderReplica, takeoverMs } from './support/coordination.js';
import { REPLICATED } from './support/fault-system.js';
import { sleep, until } from './support/fault-calls.js';
import { recordVerdict } from './support/verdict.js';

/**
 * The autoscaler's leader (ADR 17) killed with SIGKILL while it scales an endpoint under load: two replicas of the
 * endpoint-autoscaler, real worker processes (pod-lifecycle's local runtime), a burst of jobs that needs every
 * allowed worker, the leader killed once workers run, a second burst, then quiet until the idle workers are
 * stopped. Throughout, the workers the endpoint runs are sampled: never more than workersMax (no double start by
 * two leaders, nor by the new one re-deciding what the old one started); no job is handed over because its worker
 * was stopped while busy (one lease each); every job completes; the new leader stops the idle workers.
 */
const NAME = 'endpoint-autoscaler/control-loop';
const WORKERS_MAX = 3;
const JOBS_PER_BURST = 12;
const JOB_MS = 1200;
const TAKEOVER_MUST_MS = 10_000;

let db: TestDatabase;
let system: RunningSystem;
let sql: pg.Pool;
let key: string;
let endpointId: string;

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${system.url('gateway')}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** The endpoint's worker pods the autoscaler wants running (GraphQL, as the autoscaler e2e reads them). */
async function runningWorkers(): Promise<number> {
  const { body } = await api<{
    data?: { myself: { endpoints: { id: string; pods: { desiredStatus: string }[] }[] } };
  }>('POST', '/graphql', { query: 'query { myself { endpoints { id pods { desiredStatus } } } }' });
  const endpoint = body.data?.myself.endpoints.find((e) => e.id === endpointId);
  return endpoint ? endpoint.pods.filter((p) => p.desiredStatus === 'RUNNING').length : -1;
}

async function burst(label: string): Promise<string[]> {
  const replies = await Promise.all(
    Array.from({ length: JOBS_PER_BURST }, (_, i) =>
      api<{ id: string }>('POST', `/v2/${endpointId}/run`, { input: { label, i, sleepMs: JOB_MS } }),
    ),
  );
  return replies.filter((r) => r.status === 200).map((r) => r.body.id);
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'autoscaler-leader-'));
  db = await createTestDatabase('autoscaler_leader');
  system = await startApps({
    databaseUrl: db.url,
    env: { RATE_LIMITS_ENABLED: 'false' },
    replicas: { 'endpoint-autoscaler': REPLICATED['endpoint-autoscaler'] },
    readyTimeoutMs: 90_000,
    appEnv: {
      'pod-lifecycle': {
        RUNTIME_DRIVER: 'local',
        LOCAL_IMAGE_CATALOG: echoWorkerCatalog(dir),
        LOCAL_PODS_DIR: join(dir, 'pods'),
        LOCAL_READY_MS: '100',
      },
      'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200', AUTOSCALER_FAILURE_BACKOFF_MS: '500' },
    },
  });
  // The workers reach the gateway at the port it got.
  await system.restart('endpoint-autoscaler', {
    QUEUE_PUBLIC_URL: new URL(system.url('gateway')).origin,
    WORKER_PING_INTERVAL_MS: '1000',
  });
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  key = (await userWithKey(db.url, 'autoscaler-leader')).key;
  const template = await api<{ id: string }>('POST', '/v1/templates', {
    name: 'echo',
    imageName: 'test/echo-worker',
    isServerless: true,
  });
  const saved = await api<{ data: { saveEndpoint: { id: string } } }>('POST', '/graphql', {
    query: `mutation { saveEndpoint(input: { name: "leader", templateId: "${template.body.id}", gpuIds: "AMPERE_16",
      workersMin: 0, workersMax: ${WORKERS_MAX}, idleTimeout: 2, scalerType: "REQUEST_COUNT", scalerValue: 1 }) { id } }`,
  });
  endpointId = saved.body.data.saveEndpoint.id;
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await sql?.end();
  if (system) await deleteStreams(system.natsPrefix);
  await db?.drop();
});

describe('the autoscaler leader killed while it scales', () => {
  it('a new leader within seconds; never more than workersMax workers; no busy worker stopped; all jobs complete', async () => {
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await runningWorkers().catch(() => 0));
        await sleep(100);
      }
    })();

    const first = await burst('first');
    await until(() => runningWorkers().then((n) => n >= 2 || null), 60_000);
    const leader = await leaderReplica(system, 'endpoint-autoscaler', NAME);
    expect(leader).not.toBeNull();
    await system.kill('endpoint-autoscaler', 'SIGKILL', leader!);
    const takeover = await takeoverMs(system, 'endpoint-autoscaler', NAME, leader!, Date.now());
    const second = await burst('second');
    const jobs = [...first, ...second];
    const done = await until(async () => {
      const { rows } = await sql.query<{ open: string }>(
        `SELECT count(*) FILTER (WHERE status IN ('IN_QUEUE', 'IN_PROGRESS')) AS open FROM queue_broker.jobs
          WHERE id = ANY($1)`,
        [jobs],
      );
      return Number(rows[0].open) === 0 || null;
    }, 120_000);
    // Quiet now: the new leader stops the idle workers (idleTimeout 2 s).
    const drained = await until(() => runningWorkers().then((n) => n === 0 || null), 60_000);
    sampling = false;
    await sampler;
    await system.restart('endpoint-autoscaler', {}, leader!);

    const { rows } = await sql.query<{ status: string; leases: string }>(
      `SELECT j.status, (SELECT count(*) FROM queue_broker.job_attempts a WHERE a.job_id = j.id) AS leases
         FROM queue_broker.jobs j WHERE j.id = ANY($1)`,
      [jobs],
    );
    const counts = {
      jobs: jobs.length,
      accepted: rows.length,
      completed: rows.filter((r) => r.status === 'COMPLETED').length,
      handedOver: rows.filter((r) => Number(r.leases) > 1).length,
      workersMax: WORKERS_MAX,
      peakWorkers: peak,
      takeoverMs: takeover ?? -1,
      drainedToZero: drained ? 1 : 0,
    };
    const pass =
      done !== null &&
      counts.accepted === 2 * JOBS_PER_BURST &&
      counts.completed === counts.accepted &&
      counts.handedOver === 0 &&
      peak <= WORKERS_MAX &&
      takeover !== null &&
      takeover <= TAKEOVER_MUST_MS &&
      drained !== null;
    recordVerdict({ name: 'kill -9 the autoscaler leader while it scales', pass, counts });

    expect(counts).toMatchObject({
      accepted: 2 * JOBS_PER_BURST,
      completed: 2 * JOBS_PER_BURST,
      handedOver: 0,
    });
    expect(peak).toBeLessThanOrEqual(WORKERS_MAX);
    expect(takeover).not.toBeNull();
    expect(takeover).toBeLessThanOrEqual(TAKEOVER_MUST_MS);
    expect(drained).not.toBeNull();
  });
});
