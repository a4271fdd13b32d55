import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import type { AppName, EndpointView, QueryEnvelope } from '@app/contracts';
import { startWorker, type RunningWorker } from '@app/worker-sdk';
import { keysCli, type TestKey } from '../../support/accounts.js';
import { ROOT } from '../../support/paths.js';
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
  // A take's jobs reach the worker well within that grace, or not at all (ADR 8, "the two ends of that window").
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

export interface Reply<T = Record<string, unknown>> {
  status: number;
  contentType: string;
  body: T;
  ms: number;
}

/**
 * One HTTP call with a bearer key; status 0 when there was no answer (connection refused or reset, or no answer
 * within `timeoutMs`, then `timedOut`).
 */
export async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  key: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<Reply<T> & { timedOut?: boolean; error?: string }> {
  const started = Date.now();
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
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
      ms: Date.now() - started,
    };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return {
      status: 0,
      contentType: '',
      body: undefined as T,
      ms: Date.now() - started,
      timedOut,
      error: (error as Error).message,
    };
  }
}

/** Polls `fn` until it returns a truthy value; null when `timeoutMs` passed first. */
export async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch {
      // not yet (a dependency may still be down)
    }
    if (Date.now() > deadline) return null;
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Counts by a key, as a plain object (for verdict counts and readable failures). */
export function tally(values: readonly (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}

// ---------------------------------------------------------------------------------------------------------------
// Workers

/** The RunPod worker environment (compatibility.md §2) of a worker of `endpointId` talking to `gateway`. */
export function runpodWorkerEnv(
  gateway: string,
  endpointId: string,
  workerId: string,
  key: string,
  gpu = 'AMPERE_16',
): Record<string, string> {
  const base = `${gateway}/v2/${endpointId}`;
  return {
    RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_POST_STREAM: `${base}/job-stream/$RUNPOD_POD_ID/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
    RUNPOD_POD_ID: workerId,
    RUNPOD_AI_API_KEY: key,
    RUNPOD_ENDPOINT_ID: endpointId,
    RUNPOD_PING_INTERVAL: '1000',
  };
}

function workerEnv(
  fs: FaultSystem,
  endpointId: string,
  workerId: string,
  gateway = fs.gateway,
): Record<string, string> {
  return runpodWorkerEnv(gateway, endpointId, workerId, fs.workerKeys[endpointId]);
}

/**
 * Workers of @app/worker-sdk running in the test process, answering every job with its input and recording
 * every job their handler ran (a job run twice after a lost lease shows up here, whatever the broker accepted).
 * With several gateway replicas, worker n talks to gateway n mod replicas.
 */
export class RecordingWorkers {
  /** Job id → how many times a handler of these workers ran it. */
  readonly runs = new Map<string, number>();
  private readonly workers: RunningWorker[] = [];

  constructor(fs: FaultSystem, endpointId: string, count: number, concurrency: number) {
    for (let n = 1; n <= count; n++) {
      this.workers.push(
        startWorker({
          env: workerEnv(fs, endpointId, `${endpointId}-w${n}`, fs.gateways[(n - 1) % fs.gateways.length]),
          concurrency,
          exitOnSignal: false,
          shutdownGraceMs: 2000,
          log: () => undefined,
          handler: (job) => {
            this.runs.set(job.id, (this.runs.get(job.id) ?? 0) + 1);
            return job.input;
          },
        }),
      );
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}

export interface WorkerChild {
  id: string;
  child: ChildProcess;
  output(): string;
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<void>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * A worker process: an example worker of @app/worker-sdk (`libs/worker-sdk/dist/examples/<name>.worker.js`) or a
 * script of test/faults/support/ (`<name>.mjs`).
 */
export function startWorkerChild(
  fs: FaultSystem,
  script: 'sleep' | 'crash-worker',
  endpointId: string,
  workerId: string,
  env: Record<string, string> = {},
): WorkerChild {
  const path =
    script === 'sleep'
      ? join(ROOT, 'libs/worker-sdk/dist/examples/sleep.worker.js')
      : join(ROOT, 'test/faults/support', `${script}.mjs`);
  const child = spawn(process.execPath, [path], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...workerEnv(fs, endpointId, workerId), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    id: workerId,
    child,
    output: () => output,
    exited,
    waitFor: (text, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        if (output.includes(text)) return resolve();
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `worker ${workerId} did not print ${JSON.stringify(text)} within ${timeoutMs} ms:\n${output}`,
            ),
          );
        }, timeoutMs);
        const check = () => {
          if (!output.includes(text)) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
      }),
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// What the database says

export interface JobOutcomes {
  /** Accepted jobs not found in the broker's table at all. */
  missing: number;
  /** Accepted jobs still IN_QUEUE or IN_PROGRESS. */
  open: number;
  /** Accepted jobs by final status. */
  byStatus: Record<string, number>;
  /** Accepted jobs with more than one accepted (COMPLETED) attempt. */
  completedTwice: number;
  /** COMPLETED accepted jobs whose output is not their input (the echo the workers answer). */
  wrongOutput: number;
  /** Late or repeated results the broker ignored for these jobs. */
  ignoredResults: number;
}

export async function jobOutcomes(sql: pg.Pool, ids: readonly string[]): Promise<JobOutcomes> {
  const statuses = await sql.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM queue_broker.jobs WHERE id = ANY($1) GROUP BY status',
    [ids],
  );
  const byStatus = Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)]));
  const found = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const twice = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT job_id FROM queue_broker.job_attempts
      WHERE job_id = ANY($1) AND outcome = 'COMPLETED' GROUP BY job_id HAVING count(*) > 1) t`,
    [ids],
  );
  const wrong = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM queue_broker.jobs
      WHERE id = ANY($1) AND status = 'COMPLETED' AND output IS DISTINCT FROM input`,
    [ids],
  );
  const ignored = await sql.query<{ n: string }>(
    'SELECT count(*) AS n FROM queue_broker.ignored_results WHERE job_id = ANY($1)',
    [ids],
  );
  return {
    missing: ids.length - found,
    open: (byStatus.IN_QUEUE ?? 0) + (byStatus.IN_PROGRESS ?? 0),
    byStatus,
    completedTwice: Number(twice.rows[0].n),
    wrongOutput: Number(wrong.rows[0].n),
    ignoredResults: Number(ignored.rows[0].n),
  };
}

/**
 * Why accepted jobs did not complete, for a failing scenario's output: each such job's row (status, error,
 * attempts, retries, last worker) and the lines of every queue-broker replica's log that name it (at most `max`
 * jobs, 10 lines each), after how many job-takes the gateways gave up waiting for.
 */
export async function explainNotCompleted(fs: FaultSystem, ids: readonly string[], max = 5): Promise<string> {
  const { rows } = await fs.sql.query<{
    id: string;
    status: string;
    error: string | null;
    attempts: number;
    retries: number;
    last_worker_id: string | null;
  }>(
    `SELECT id, status, error, attempts, retries, last_worker_id FROM queue_broker.jobs
      WHERE id = ANY($1) AND status <> 'COMPLETED' ORDER BY queued_at LIMIT $2`,
    [ids, max],
  );
  const logs = fs.system.apps.includes('queue-broker') ? fs.system.logs('queue-broker').split('\n') : [];
  // A take the gateway gave up waiting for may still be applied by the broker later: a lease the worker never got.
  const takeWaits = fs.system.apps.includes('gateway')
    ? fs.system
        .logs('gateway')
        .split('\n')
        .filter((line) => line.includes('job-take of worker') && line.includes('waits')).length
    : 0;
  const header = `(the gateways logged ${takeWaits} job-take(s) that gave up waiting for the broker)`;
  return [
    header,
    ...rows.map((row) => {
      const lines = logs.filter((line) => line.includes(row.id)).slice(0, 10);
      return [
        `job ${row.id}: ${row.status} after ${row.attempts} attempt(s), ${row.retries} retr(ies), last worker ${row.last_worker_id}: ${row.error}`,
        ...lines.map((line) => `  | ${line}`),
      ].join('\n');
    }),
  ].join('\n');
}

/**
 * Of the jobs in `ranTwice` (run more than once by the scenario's workers), how many have no attempt the broker
 * ended WORKER_LOST: run twice although no worker was declared lost (a lease taken back as UNCONFIRMED, say).
 */
export async function ranTwiceWithoutLostWorker(sql: pg.Pool, ranTwice: readonly string[]): Promise<number> {
  const { rows } = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT job_id FROM queue_broker.job_attempts WHERE job_id = ANY($1)
      GROUP BY job_id HAVING NOT bool_or(outcome IS NOT DISTINCT FROM 'WORKER_LOST')) t`,
    [ranTwice],
  );
  return Number(rows[0].n);
}

export interface PlacementLedger {
  /** Hosts whose reserved GPUs exceed their GPUs (a GPU booked twice), or whose free count disagrees. */
  gpuDoubleBooked: number;
  ledgerMismatches: number;
  /** Host ports held twice or outside the host's range. */
  portProblems: number;
  /** Live clusters without exactly pod_count members and reservations. */
  incompleteClusters: number;
  liveClusters: number;
  /** Live clusters sharing a VXLAN id or an overlapping CIDR. */
  overlayClashes: number;
  reservedGpus: number;
}

/** Reads the cluster-scheduler's schema: what is really reserved, and whether it adds up. */
export async function placementLedger(sql: pg.Pool): Promise<PlacementLedger> {
  const hosts = await sql.query<{ gpu_count: number; free_gpus: number; held: string }>(
    `SELECT h.gpu_count, h.free_gpus,
            coalesce((SELECT sum(r.gpu_count) FROM cluster_scheduler.reservations r WHERE r.host_id = h.id), 0) AS held
       FROM cluster_scheduler.hosts h`,
  );
  const ports = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM cluster_scheduler.hosts h
      WHERE h.free_ports + (SELECT count(*) FROM cluster_scheduler.host_ports p WHERE p.host_id = h.id)
            <> h.port_end - h.port_start + 1
         OR EXISTS (SELECT 1 FROM cluster_scheduler.host_ports p
                     WHERE p.host_id = h.id AND (p.port < h.port_start OR p.port > h.port_end))`,
  );
  const clusters = await sql.query<{ n: string; incomplete: string }>(
    `SELECT count(*) AS n,
            count(*) FILTER (WHERE
              (SELECT count(*) FROM cluster_scheduler.cluster_members m WHERE m.cluster_id = c.id) <> c.pod_count
              OR (SELECT count(*) FROM cluster_scheduler.reservations r WHERE r.cluster_id = c.id) <> c.pod_count
            ) AS incomplete
       FROM cluster_scheduler.clusters c WHERE c.deleted_at IS NULL`,
  );
  const clashes = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM cluster_scheduler.clusters a JOIN cluster_scheduler.clusters b
        ON a.id < b.id AND (a.cidr && b.cidr OR a.vxlan_id = b.vxlan_id)
      WHERE a.deleted_at IS NULL AND b.deleted_at IS NULL`,
  );
  return {
    gpuDoubleBooked: hosts.rows.filter((h) => Number(h.held) > h.gpu_count).length,
    ledgerMismatches: hosts.rows.filter((h) => h.free_gpus + Number(h.held) !== h.gpu_count).length,
    portProblems: Number(ports.rows[0].n),
    incompleteClusters: Number(clusters.rows[0].incomplete),
    liveClusters: Number(clusters.rows[0].n),
    overlayClashes: Number(clashes.rows[0].n),
    reservedGpus: hosts.rows.reduce((sum, h) => sum + Number(h.held), 0),
  };
}
