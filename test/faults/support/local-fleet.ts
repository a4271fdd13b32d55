import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { keysCli, userWithKey, type TestKey } from '../../support/accounts.js';
import { echoWorkerCatalog } from '../../support/echo-worker.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../../support/system.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { A100, writeFleet } from '../../e2e/clusters-fixtures.js';
import { LOAD_TIMINGS, REPLICATED } from './fault-system.js';
import { call, type Reply } from './fault-calls.js';

/**
 * A fleet scenario's system with real worker processes: the five apps, two replicas of each but pod-lifecycle (its
 * local runtime runs one, ADR 6), which runs the echo worker per worker pod and an idle process for a user's pod
 * (`test/idle`); the load scenarios' short timings; hosts of 8 A100 in one data center; a user, an operator's key,
 * and a queue endpoint on A100s.
 */
export interface LocalFleet {
  system: RunningSystem;
  db: TestDatabase;
  sql: pg.Pool;
  user: TestKey;
  operator: TestKey;
  endpointId: string;
  gateways: string[];
  /** A call with the user's key to gateway `n` (round robin). */
  api<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    n?: number,
  ): Promise<Reply<T>>;
  close(): Promise<void>;
}

export interface PodRow {
  id: string;
  status: string;
  desired_status: string;
  host_id: string | null;
  status_reason: string | null;
  created_at: Date;
}

export interface LocalEndpoint {
  workersMin: number;
  workersMax: number;
}

export async function startLocalFleet(
  label: string,
  hosts: readonly string[],
  endpoint: LocalEndpoint,
): Promise<LocalFleet> {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  const catalog = echoWorkerCatalog(dir);
  // A user's pod: a process that runs until it is stopped.
  const images = JSON.parse(readFileSync(catalog, 'utf8')) as { images: Record<string, unknown> };
  images.images['test/idle'] = { command: ['{node}', '-e', 'setInterval(() => {}, 1000)'] };
  writeFileSync(catalog, JSON.stringify(images));
  const db = await createTestDatabase(label.replace(/-/g, '_'));
  const fleet = writeFleet(
    hosts.map((id) => ({ id, dataCenterId: 'US-TX-3', gpuTypeId: A100, gpuCount: 8 })),
  );
  const system = await startApps({
    databaseUrl: db.url,
    env: { RATE_LIMITS_ENABLED: 'false', ...LOAD_TIMINGS.env },
    replicas: { ...REPLICATED, 'pod-lifecycle': 1 },
    readyTimeoutMs: 90_000,
    appEnv: {
      'cluster-scheduler': { FLEET_FILE: fleet },
      'pod-lifecycle': {
        RUNTIME_DRIVER: 'local',
        LOCAL_IMAGE_CATALOG: catalog,
        LOCAL_PODS_DIR: join(dir, 'pods'),
        LOCAL_READY_MS: '100',
      },
      'endpoint-autoscaler': {
        AUTOSCALER_TICK_MS: '200',
        AUTOSCALER_FAILURE_BACKOFF_MS: '500',
        // The workers reach the first gateway.
        QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
        WORKER_PING_INTERVAL_MS: '1000',
      },
      'queue-broker': LOAD_TIMINGS['queue-broker'],
      gateway: LOAD_TIMINGS.gateway,
    },
  });
  const gateways = system.urls('gateway');
  const sql = new pg.Pool({ connectionString: db.url, max: 3 });
  sql.on('error', () => undefined);
  const user = await userWithKey(db.url, label);
  const operator = JSON.parse(
    await keysCli(db.url, ['key', 'create', user.userId, '--scope', 'operator', '--json']),
  ) as TestKey;
  const api = <T>(method: string, path: string, body?: unknown, n = 0) =>
    call<T>(method, `${gateways[n % gateways.length]}${path}`, user.key, body);
  const template = await api<{ id: string }>('POST', '/v1/templates', {
    name: 'echo',
    imageName: 'test/echo-worker',
    isServerless: true,
  });
  const saved = await api<{ data?: { saveEndpoint: { id: string } }; errors?: unknown }>('POST', '/graphql', {
    query: `mutation { saveEndpoint(input: { name: "${label}", templateId: "${template.body.id}",
      gpuIds: "AMPERE_80", workersMin: ${endpoint.workersMin}, workersMax: ${endpoint.workersMax}, idleTimeout: 60,
      scalerType: "QUEUE_DELAY", scalerValue: 2 }) { id } }`,
  });
  if (!saved.body.data) throw new Error(`saveEndpoint: ${JSON.stringify(saved.body.errors)}`);
  return {
    system,
    db,
    sql,
    user,
    operator,
    endpointId: saved.body.data.saveEndpoint.id,
    gateways,
    api,
    close: async () => {
      await system.stop();
      await sql.end();
      await deleteStreams(system.natsPrefix);
      await db.drop();
    },
  };
}

const POD_COLUMNS = 'id, status, desired_status, host_id, status_reason, created_at';

/** The endpoint's worker pods as pod-lifecycle has them (any status), oldest first. */
export async function workerPods(lf: LocalFleet): Promise<PodRow[]> {
  const { rows } = await lf.sql.query<PodRow>(
    `SELECT ${POD_COLUMNS} FROM pod_lifecycle.pods WHERE endpoint_id = $1 ORDER BY created_at, id`,
    [lf.endpointId],
  );
  return rows;
}

export async function podRow(lf: LocalFleet, id: string): Promise<PodRow | undefined> {
  const { rows } = await lf.sql.query<PodRow>(`SELECT ${POD_COLUMNS} FROM pod_lifecycle.pods WHERE id = $1`, [
    id,
  ]);
  return rows[0];
}
