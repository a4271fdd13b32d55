import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TemplateView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { closeBus, commandEnvelope, sendCommand } from '../support/bus.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, writeFleet } from './clusters-fixtures.js';
import { client, sleep, until, type Call } from './pods.e2e-helpers.js';

/**
 * What fleet-drain.e2e-spec.ts runs against: the five apps on a database of their own, the local runtime running a
 * real worker process per worker pod (and an idle process for a user's pod), three hosts of four A100s (h-a, h-b,
 * h-c), and alice with a serverless template; fleet commands go on the bus as an operator's.
 */

const HOSTS = ['h-a', 'h-b', 'h-c'];
const OPERATOR = { userId: 'system:operator', kind: 'system' as const };

export interface Job {
  id: string;
  status: string;
  output?: { workerId: string };
}

export class FleetSystem {
  private constructor(
    readonly db: TestDatabase,
    readonly system: RunningSystem,
    readonly sql: pg.Client,
    readonly alice: Call,
    private readonly template: TemplateView,
  ) {}

  static async start(): Promise<FleetSystem> {
    const fleetFile = writeFleet(
      HOSTS.map((id) => ({ id, dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 4 })),
    );
    const dir = mkdtempSync(join(tmpdir(), 'fleet-drain-e2e-'));
    const catalog = echoWorkerCatalog(dir);
    // A user's pod: a process that runs until it is stopped.
    const images = JSON.parse(readFileSync(catalog, 'utf8')) as { images: Record<string, unknown> };
    images.images['test/idle'] = { command: ['{node}', '-e', 'setInterval(() => {}, 1000)'] };
    writeFileSync(catalog, JSON.stringify(images));
    const db = await createTestDatabase('fleet_drain');
    const system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'cluster-scheduler': { FLEET_FILE: fleetFile, FLEET_DRAIN_CHECK_MS: '500' },
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: catalog,
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
        },
        'endpoint-autoscaler': {
          AUTOSCALER_TICK_MS: '200',
          AUTOSCALER_FAILURE_BACKOFF_MS: '500',
          QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
          WORKER_PING_INTERVAL_MS: '1000',
        },
        // A terminated worker's unfinished job comes back within seconds.
        'queue-broker': { WORKER_LOST_AFTER_MS: '4000', SWEEP_INTERVAL_MS: '500' },
      },
    });
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    const alice = client(system, (await userWithKey(db.url, 'alice')).key);
    const template = await alice<TemplateView>('POST', '/v1/templates', {
      name: 'echo',
      imageName: 'test/echo-worker',
      isServerless: true,
    });
    return new FleetSystem(db, system, sql, alice, template.body);
  }

  async stop(): Promise<void> {
    await closeBus();
    await this.sql.end();
    await this.system.stop();
    await deleteStreams(this.system.natsPrefix);
    await this.db.drop();
  }

  /** A fleet command as an operator's, on the bus; throws its refusal. */
  async fleet(subject: string, payload: Record<string, unknown>): Promise<void> {
    const envelope = commandEnvelope(subject, payload, { actor: OPERATOR });
    const outcome = await sendCommand(this.system.natsPrefix, envelope, 20_000);
    if (!outcome.ok) throw new Error(`${subject}: ${outcome.error.code}: ${outcome.error.message}`);
  }

  /** A queue endpoint on A100s that keeps two workers. */
  async createEndpoint(name: string): Promise<string> {
    const reply = await this.alice<{ data?: { saveEndpoint: { id: string } }; errors?: unknown }>(
      'POST',
      '/graphql',
      {
        query: `mutation { saveEndpoint(input: { name: "${name}", templateId: "${this.template.id}",
          gpuIds: "AMPERE_80", workersMin: 2, workersMax: 2, idleTimeout: 60, scalerType: "QUEUE_DELAY",
          scalerValue: 1 }) { id } }`,
      },
    );
    if (!reply.body.data) throw new Error(`saveEndpoint: ${JSON.stringify(reply.body.errors)}`);
    return reply.body.data.saveEndpoint.id;
  }

  /** The endpoint's worker pods as pod-lifecycle has them (any status), oldest first. */
  async workerPods(endpointId: string): Promise<{ id: string; status: string; host_id: string | null }[]> {
    const { rows } = await this.sql.query<{ id: string; status: string; host_id: string | null }>(
      'SELECT id, status, host_id FROM pod_lifecycle.pods WHERE endpoint_id = $1 ORDER BY created_at, id',
      [endpointId],
    );
    return rows;
  }

  /** Submits `count` jobs (each sleeping `sleepMs` in the worker) `gapMs` apart; resolves with their ids. */
  async submit(endpointId: string, count: number, sleepMs: number, gapMs: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const reply = await this.alice<Job>('POST', `/v2/${endpointId}/run`, { input: { n: i, sleepMs } });
      if (reply.status !== 200) throw new Error(`job ${i}: ${reply.status} ${reply.text}`);
      ids.push(reply.body.id);
      await sleep(gapMs);
    }
    return ids;
  }

  /** Waits until every job has finished; resolves with their final answers. */
  finished(endpointId: string, ids: string[], timeoutMs = 90_000): Promise<Job[]> {
    return until(
      'the jobs finished',
      async () => {
        const jobs = await Promise.all(
          ids.map(async (id) => (await this.alice<Job>('GET', `/v2/${endpointId}/status/${id}`)).body),
        );
        return jobs.every((job) => job.status === 'COMPLETED' || job.status === 'FAILED') ? jobs : null;
      },
      timeoutMs,
    );
  }
}
