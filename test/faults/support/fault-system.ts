import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import type { AppName, EndpointView, QueryEnvelope } from '@app/contracts';
import { keysCli, type TestKey } from '../../support/accounts.js';
import {
  deleteStreams,
  freshNatsPrefix,
  startApps,
  type EnvOverrides,
  type RunningSystem,
} from '../../support/system.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { testEnv } from '../../support/test-env.js';
import { A100, writeFleet } from '../../e2e/clusters-fixtures.js';

/**
 * A system for fault scenarios: the apps as child processes (test/support/system.ts) on the run's private NATS
 * and Postgres, a rate-limit-exempt user, queue-based endpoints answered on `endpoint.qry.get` by a stand-in owner
 * in the test process (as the jobs e2e tests do: endpoint-autoscaler would need pod-lifecycle to save one), worker
 * keys for them, and a fleet of 4 hosts x 8 A100 for the cluster-scheduler.
 */
/**
 * The short timings of the load scenarios (app kills, NATS and Postgres restarts): redelivery after a crash waits
 * 5 s for the ack deadline instead of 30 s, lost workers and unconfirmed leases are noticed in seconds, and a held
 * long poll is asked again every 2 s.
 */
export const LOAD_TIMINGS = {
  env: { COMMAND_ACK_WAIT_MS: '5000' },
  // The lease grace outlasts a redelivery (COMMAND_ACK_WAIT_MS) with room for the load: a take applied that late
  // by the surviving broker replica must reach its worker before a heartbeat can count against it.
  'queue-broker': {
    WORKER_LOST_AFTER_MS: '10000',
    LEASE_CONFIRM_GRACE_MS: '12000',
    SWEEP_INTERVAL_MS: '250',
  },
  // A take's jobs reach the worker well within that grace, or not at all (ADR 8, "The lease window's two ends").
  gateway: { JOB_TAKE_LONG_POLL_MS: '10000', JOB_POLL_RECHECK_MS: '2000', JOB_TAKE_HAND_OUT_MS: '8000' },
} as const;

export interface FaultSystem {
  system: RunningSystem;
  db: TestDatabase;
  /** A pool (it survives a Postgres restart, a lone client would not) on the system's database. */
  sql: pg.Pool;
  user: TestKey;
  /** Endpoint ids by name. */
  endpoints: Record<string, string>;
  workerKeys: Record<string, string>;
  /** The first gateway's URL. */
  gateway: string;
  /** Every gateway replica's URL (one unless the system runs replicas of the gateway). */
  gateways: string[];
  close(): Promise<void>;
}

export interface FaultSystemOptions {
  apps: readonly AppName[];
  endpoints: string[];
  env?: EnvOverrides;
  appEnv?: Partial<Record<AppName, EnvOverrides>>;
  /** Processes of an app (1 by default): replicas on ports of their own, as test/support/system.ts runs them. */
  replicas?: Partial<Record<AppName, number>>;
  /** NATS of this system (NATS_URL), when not the run's private server: a cluster a scenario runs itself. */
  natsUrl?: string;
}

/**
 * How long an app may take to answer /readyz, at the start and after each restart: the machine is shared, and a
 * restart under the load of these scenarios has taken 30 s there.
 */
const READY_TIMEOUT_MS = 90_000;

/**
 * Two replicas of every app: every scenario runs so (the load spread over both gateways where it has load), because
 * the guarantees must hold for a scaled-out deployment. FAULT_REPLICAS=1 runs them with one process of each
 * instead (to tell whether a failure needs replicas).
 */
const REPLICAS = Number(process.env.FAULT_REPLICAS || 2);
if (!Number.isInteger(REPLICAS) || REPLICAS < 1) {
  throw new Error(`FAULT_REPLICAS=${process.env.FAULT_REPLICAS}`);
}
export const REPLICATED = {
  gateway: REPLICAS,
  'queue-broker': REPLICAS,
  'cluster-scheduler': REPLICAS,
  'pod-lifecycle': REPLICAS,
  'endpoint-autoscaler': REPLICAS,
} as const;

/** Hosts of the fleet every fault system gets: 4 hosts x 8 A100, 40 public ports each, in one data center. */
export const FLEET_HOSTS = 4;
export const GPUS_PER_HOST = 8;

export { A100 };

function endpointView(id: string, ownerId: string): EndpointView {
  return {
    id,
    ownerId,
    name: id,
    type: 'QB',
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

/** The stand-in endpoint owner; it reconnects forever, so a NATS restart does not silence it. */
async function serveEndpoints(
  prefix: string,
  views: EndpointView[],
  natsUrl = testEnv().natsUrl,
): Promise<NatsConnection> {
  const nc = await connect({
    servers: natsUrl.split(','),
    name: 'faults-endpoint-owner',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
  });
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

export async function startFaultSystem(label: string, options: FaultSystemOptions): Promise<FaultSystem> {
  const db = await createTestDatabase(label);
  const natsPrefix = freshNatsPrefix();
  const userName = `faults-${label}`;
  await keysCli(db.url, ['user', 'create', userName, '--exempt']);
  const user = JSON.parse(await keysCli(db.url, ['key', 'create', userName, '--json'])) as TestKey;
  const endpoints: Record<string, string> = {};
  const workerKeys: Record<string, string> = {};
  for (const name of options.endpoints) {
    const id = `ep-${label}-${name}`;
    endpoints[name] = id;
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
  const owner = await serveEndpoints(
    natsPrefix,
    Object.values(endpoints).map((id) => endpointView(id, user.userId)),
    options.natsUrl,
  );
  const fleet = writeFleet(
    Array.from({ length: FLEET_HOSTS }, (_, i) => ({
      id: `faults-host-${i + 1}`,
      dataCenterId: 'US-TX-3',
      gpuTypeId: A100,
      gpuCount: GPUS_PER_HOST,
      ports: 40,
    })),
  );
  let system: RunningSystem;
  try {
    system = await startApps({
      apps: options.apps,
      databaseUrl: db.url,
      natsPrefix,
      env: {
        RATE_LIMITS_ENABLED: 'false',
        ...(options.natsUrl ? { NATS_URL: options.natsUrl } : {}),
        ...options.env,
      },
      replicas: options.replicas,
      readyTimeoutMs: READY_TIMEOUT_MS,
      appEnv: {
        ...options.appEnv,
        'cluster-scheduler': { FLEET_FILE: fleet, ...options.appEnv?.['cluster-scheduler'] },
      },
    });
  } catch (error) {
    await owner.close();
    await deleteStreams(natsPrefix).catch(() => undefined);
    await db.drop();
    throw error;
  }
  const sql = new pg.Pool({ connectionString: db.url, max: 4, connectionTimeoutMillis: 5000 });
  sql.on('error', () => undefined); // an idle client dropped by a Postgres restart
  return {
    system,
    db,
    sql,
    user,
    endpoints,
    workerKeys,
    gateway: system.url('gateway'),
    gateways: system.urls('gateway'),
    close: async () => {
      await system.stop();
      await sql.end();
      await owner.close();
      await deleteStreams(natsPrefix).catch(() => undefined);
      await db.drop();
    },
  };
}
