import pg from 'pg';
import { APP_NAMES } from '@app/contracts';
import { keysCli, type TestKey } from '../../../support/accounts.js';
import {
  GATEWAY_ORIGIN,
  TEST_REGISTRY_AUTH_KEYS,
  TEST_WORKER_KEY_RING,
  deleteStreams,
  startApps,
  type RunningSystem,
} from '../../../support/system.js';
import { createTestDatabase, type TestDatabase } from '../../../support/test-database.js';
import { testEnv } from '../../../support/test-env.js';
import { A100, writeFleet } from '../../../e2e/clusters-fixtures.js';
import { call, type Reply } from '../fault-calls.js';

/**
 * The running system a randomized history drives: all five apps (`replicas` processes of each; the history restarts them),
 * the simulated runtime with quick timers, a fleet of 4 hosts x 8 A100 (and CPU slots) in one data center, and
 * short worker timings so that lost workers, timeouts and stops happen within a run.
 */
export const HISTORY_DC = 'US-TX-3';
export { A100 };

/**
 * Settings the live apps and the rebuild's apps share: the broker's rules (when a worker is lost, how many
 * attempts) decide what its recorded commands do, so the rebuild must apply them with the same values.
 */
const SHARED_ENV = {
  RATE_LIMITS_ENABLED: 'false',
  COMMAND_ACK_WAIT_MS: '3000',
  WORKER_LOST_AFTER_MS: '3000',
  LEASE_CONFIRM_GRACE_MS: '5000',
  STOP_REPEAT_AFTER_MS: '2000',
  JOB_MAX_ATTEMPTS: '3',
};

export interface HistorySystem {
  system: RunningSystem;
  db: TestDatabase;
  sql: pg.Pool;
  user: TestKey;
  gateway: string;
  /** The environment `npm run replay` needs for this system (bus, database, keys, shared settings). */
  replayEnv: Record<string, string>;
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** The same with an operator's key (quotas). */
  operatorApi<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  graphql<T>(
    query: string,
  ): Promise<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[]; status: number }>;
  /** A worker-scoped key of the endpoint. */
  workerKey(endpointId: string): Promise<string>;
  close(): Promise<void>;
}

/** `replicas`: processes of each app (the history kills and restarts whole apps: every replica at once). */
export async function startHistorySystem(label: string, replicas = 1): Promise<HistorySystem> {
  const db = await createTestDatabase(label);
  const fleet = writeFleet(
    Array.from({ length: 4 }, (_, i) => ({
      id: `history-host-${i + 1}`,
      dataCenterId: HISTORY_DC,
      gpuTypeId: A100,
      gpuCount: 8,
      cpuSlots: 8,
      ports: 60,
    })),
  );
  let system: RunningSystem;
  try {
    system = await startApps({
      databaseUrl: db.url,
      env: { ...SHARED_ENV, FLEET_FILE: fleet, SIM_PROVISION_MS: '150', SIM_START_MS: '150' },
      readyTimeoutMs: 90_000,
      replicas: Object.fromEntries(APP_NAMES.map((app) => [app, replicas])),
      appEnv: {
        'queue-broker': { SWEEP_INTERVAL_MS: '250' },
        // A take's jobs are handed out only well within the broker's 5 s lease grace (ADR 8).
        gateway: { JOB_TAKE_LONG_POLL_MS: '2000', JOB_POLL_RECHECK_MS: '1000', JOB_TAKE_HAND_OUT_MS: '4000' },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated' },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '250', QUEUE_PUBLIC_URL: GATEWAY_ORIGIN },
      },
    });
  } catch (error) {
    await db.drop();
    throw error;
  }
  // Once the system runs: the keys CLI records its commands in the system's stream, which the rebuild replays.
  await keysCli(db.url, ['user', 'create', label, '--exempt']);
  const user = JSON.parse(await keysCli(db.url, ['key', 'create', label, '--json'])) as TestKey;
  const operator = JSON.parse(
    await keysCli(db.url, ['key', 'create', label, '--scope', 'operator', '--json']),
  ) as TestKey;
  const sql = new pg.Pool({ connectionString: db.url, max: 3 });
  sql.on('error', () => undefined);
  const gateway = system.url('gateway');
  const keys = new Map<string, string>();
  return {
    system,
    db,
    sql,
    user,
    gateway,
    replayEnv: {
      NATS_URL: testEnv().natsUrl,
      NATS_PREFIX: system.natsPrefix,
      DATABASE_URL: db.url,
      REGISTRY_AUTH_KEYS: TEST_REGISTRY_AUTH_KEYS,
      WORKER_KEY_RING: TEST_WORKER_KEY_RING,
      FLEET_FILE: fleet,
      LOG_LEVEL: 'warn',
      ...SHARED_ENV,
      // The rebuild runs the gateway too (accounts, the audit trail), whose hand-out must stay below the grace.
      JOB_TAKE_HAND_OUT_MS: '4000',
    },
    api: (method, path, body) => call(method, `${gateway}${path}`, user.key, body, 20_000),
    operatorApi: (method, path, body) => call(method, `${gateway}${path}`, operator.key, body, 20_000),
    graphql: async <T>(query: string) => {
      const reply = await call<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>(
        'POST',
        `${gateway}/graphql`,
        user.key,
        { query },
        20_000,
      );
      return { ...(reply.body ?? {}), status: reply.status };
    },
    workerKey: async (endpointId) => {
      let key = keys.get(endpointId);
      if (!key) {
        const args = ['key', 'create', user.userId, '--scope', 'worker', '--endpoints', endpointId, '--json'];
        key = (JSON.parse(await keysCli(db.url, args)) as TestKey).key;
        keys.set(endpointId, key);
      }
      return key;
    },
    close: async () => {
      await system.stop();
      await sql.end();
      await deleteStreams(system.natsPrefix).catch(() => undefined);
      await db.drop();
    },
  };
}
