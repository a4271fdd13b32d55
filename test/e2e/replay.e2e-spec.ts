import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { userWithKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import {
  GATEWAY_ORIGIN,
  TEST_REGISTRY_AUTH_KEYS,
  TEST_WORKER_KEY_RING,
  deleteStreams,
  startApps,
  type RunningSystem,
} from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { sql } from './clusters-fixtures.js';
import { until } from './pods.e2e-helpers.js';
import { testEnv } from '../support/test-env.js';

const run = promisify(execFile);

/** How long the session's steps may take on a loaded 2-core machine. */
const WAIT_MS = 45_000;

/** A worker of the RunPod protocol (compatibility.md §2), run by the local runtime for the endpoint's workers. */
const WORKER_SOURCE = `
const env = process.env;
const podId = env.RUNPOD_POD_ID;
const auth = { authorization: env.RUNPOD_AI_API_KEY };
const takeUrl = env.RUNPOD_WEBHOOK_GET_JOB.replace('$ID', podId);
const doneUrl = (jobId) => env.RUNPOD_WEBHOOK_POST_OUTPUT.replace('$RUNPOD_POD_ID', podId).replace('$ID', jobId);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
for (;;) {
  try {
    const res = await fetch(takeUrl + '&job_in_progress=0', { headers: auth });
    if (res.status !== 200) { await res.text(); if (res.status !== 204) await sleep(200); continue; }
    const body = await res.json();
    const job = Array.isArray(body) ? body[0] : body;
    if (!job) continue;
    await fetch(doneUrl(job.id) + '&isStream=false', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ output: { echo: job.input } }),
    });
  } catch { await sleep(200); }
}
`;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The operators' replay tool against a realistic recorded session: network volume, registry credential,
 * templates, pods through start/stop/reset/terminate, a cluster created and deleted, a serverless endpoint whose
 * autoscaled worker (a real process) completes queued and synchronous jobs, and a cancelled job. The live apps
 * are then restarted in REPLAY_MODE (answering, but adding nothing to the stream) and the tool lists, shows,
 * replays (nothing left to apply) and rebuilds the whole stream into fresh schemas, which must equal the live ones.
 */
describe('replay tool', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let key: string;
  let userId: string;
  let appEnv: Record<string, string>;

  async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${system.url('gateway')}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }

  async function graphql<T>(query: string): Promise<T> {
    const { body } = await api<{ data?: T; errors?: { message: string }[] }>('POST', '/graphql', { query });
    if (body.errors) throw new Error(`GraphQL: ${body.errors.map((e) => e.message).join('; ')}`);
    return body.data!;
  }

  const podStatus = async (id: string) =>
    (await api<{ desiredStatus: string }>('GET', `/v1/pods/${id}`)).body.desiredStatus;

  async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [join(ROOT, 'dist/tools/replay/replay.mjs'), ...args],
        {
          env: { ...process.env, ...appEnv, ...env },
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  async function recordSession(): Promise<void> {
    const volume = await api<{ id: string }>('POST', '/v1/networkvolumes', {
      name: 'data',
      size: 10,
      dataCenterId: 'EU-RO-1',
    });
    expect(volume.status).toBe(201);
    const auth = await api<{ id: string }>('POST', '/v1/containerregistryauth', {
      name: 'hub',
      username: 'me',
      password: 'hunter2-secret',
    });
    expect(auth.status).toBe(201);
    const template = await api<{ id: string }>('POST', '/v1/templates', {
      name: 'trainer',
      imageName: 'acme/trainer:1',
      containerRegistryAuthId: auth.body.id,
      ports: ['8888/http'],
    });
    expect(template.status).toBe(201);

    // Pods through their lifecycle.
    const gpuPod = await api<{ id: string }>('POST', '/v1/pods', {
      name: 'gpu',
      imageName: 'acme/trainer:1',
      gpuTypeId: 'NVIDIA H100 80GB HBM3',
      gpuCount: 1,
      ports: ['22/tcp'],
      env: { HF_TOKEN: 'tok-secret' },
    });
    expect(gpuPod.status).toBe(201);
    const cpuPod = await api<{ id: string }>('POST', '/v1/pods', {
      name: 'cpu',
      imageName: 'alpine:3',
      computeType: 'CPU',
      cpuFlavorId: 'cpu3c',
    });
    expect(cpuPod.status).toBe(201);
    await until('the GPU pod running', async () => (await podStatus(gpuPod.body.id)) === 'RUNNING', WAIT_MS);
    expect((await api('POST', `/v1/pods/${gpuPod.body.id}/stop`)).status).toBe(200);
    // The scheduler releases a stopped pod's GPUs when it sees the EXITED status event. Starting the pod again
    // before it has is a race the rebuild once reported as a leftover reservation (see the closing note of #8);
    // this session waits for the release.
    await until(
      "the GPU pod's release",
      async () =>
        (await sql(db.url, 'SELECT 1 FROM reservations WHERE pod_id = $1', [gpuPod.body.id])).length === 0,
      WAIT_MS,
    );
    expect((await api('POST', `/v1/pods/${gpuPod.body.id}/start`)).status).toBe(200);
    await until(
      'the GPU pod running again',
      async () => (await podStatus(gpuPod.body.id)) === 'RUNNING',
      WAIT_MS,
    );
    // 200, or 409 while the new run is still STARTING: either answer is a recorded outcome the rebuild must match.
    expect([200, 409]).toContain((await api('POST', `/v1/pods/${gpuPod.body.id}/reset`)).status);
    expect((await api('DELETE', `/v1/pods/${cpuPod.body.id}`)).status).toBe(204);

    // A cluster: members created from the scheduler's event, run, then torn down.
    const cluster = await api<{ id: string }>('POST', '/v2/clusters', {
      name: 'c',
      type: 'TRAINING',
      compute: { gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCountPerPod: 1, podCount: 2 },
      dataCenterIds: ['US-TX-3'],
    });
    expect(cluster.status).toBe(201);
    await until(
      'the cluster running',
      async () => {
        const view = await api<{ pods: { byStatus: Record<string, number> } }>(
          'GET',
          `/v2/clusters/${cluster.body.id}`,
        );
        return view.body.pods.byStatus.RUNNING === 2;
      },
      WAIT_MS,
    );
    expect((await api('DELETE', `/v2/clusters/${cluster.body.id}`)).status).toBe(204);

    // A serverless endpoint with one autoscaled worker that runs queued and synchronous jobs.
    const echo = await api<{ id: string }>('POST', '/v1/templates', {
      name: 'echo',
      imageName: 'test/echo-worker',
      isServerless: true,
    });
    const { saveEndpoint } = await graphql<{ saveEndpoint: { id: string } }>(
      `mutation { saveEndpoint(input: { name: "e", templateId: "${echo.body.id}", gpuIds: "AMPERE_16", workersMin: 1, workersMax: 1, idleTimeout: 5 }) { id } }`,
    );
    const endpoint = saveEndpoint.id;
    const jobs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api<{ id: string }>('POST', `/v2/${endpoint}/run`, { input: { i } }),
      ),
    );
    expect(jobs.every((j) => j.status === 200)).toBe(true);
    // Sent at once, most of them travel batched into one job.cmd.submit-many: the rebuild below replays that too.
    const batched = await sql(
      db.url,
      "SELECT 1 FROM queue_broker.processed_commands WHERE subject = 'job.cmd.submit-many'",
    );
    expect(batched.length).toBeGreaterThan(0);
    const sync = await api<{ status: string }>('POST', `/v2/${endpoint}/runsync?wait=60000`, {
      input: { sync: true },
    });
    expect(sync.body.status).toBe('COMPLETED');
    for (const job of jobs) {
      await until(
        `job ${job.body.id}`,
        async () => {
          const status = await api<{ status: string }>('GET', `/v2/${endpoint}/status/${job.body.id}`);
          return status.body.status === 'COMPLETED';
        },
        WAIT_MS,
      );
    }
    // Scale to zero and wait for the worker to be gone, so the live side ends quiet.
    await graphql(
      `mutation { saveEndpoint(input: { id: "${endpoint}", name: "e", templateId: "${echo.body.id}", gpuIds: "AMPERE_16", workersMin: 0, workersMax: 0 }) { id } }`,
    );
    await until(
      'the worker gone',
      async () => {
        const data = await graphql<{
          myself: { endpoints: { id: string; pods: { desiredStatus: string }[] }[] };
        }>('query { myself { endpoints { id pods { desiredStatus } } } }');
        return data.myself.endpoints
          .find((e) => e.id === endpoint)
          ?.pods.every((p) => p.desiredStatus !== 'RUNNING');
      },
      WAIT_MS,
    );
    // Deleted, then its record removed by the control loop once its workers are gone: by a recorded command
    // (endpoint.cmd.remove), so the rebuild removes it too.
    await graphql(`mutation { deleteEndpoint(id: "${endpoint}") }`);
    await until(
      "the deleted endpoint's record removed",
      async () =>
        (await sql(db.url, 'SELECT 1 FROM endpoint_autoscaler.endpoints WHERE id = $1', [endpoint]))
          .length === 0,
      WAIT_MS,
    );
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-e2e-'));
    writeFileSync(join(dir, 'worker.mjs'), WORKER_SOURCE);
    const catalog = join(dir, 'images.json');
    writeFileSync(
      catalog,
      JSON.stringify({ images: { 'test/echo-worker': { command: ['{node}', join(dir, 'worker.mjs')] } } }),
    );
    db = await createTestDatabase('replay');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: catalog,
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
        },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200', QUEUE_PUBLIC_URL: GATEWAY_ORIGIN },
      },
    });
    ({ key, userId } = await userWithKey(db.url, 'operator-session'));
    appEnv = {
      NATS_URL: testEnv().natsUrl,
      NATS_PREFIX: system.natsPrefix,
      DATABASE_URL: db.url,
      REGISTRY_AUTH_KEYS: TEST_REGISTRY_AUTH_KEYS,
      WORKER_KEY_RING: TEST_WORKER_KEY_RING,
      LOG_LEVEL: 'warn',
    };
    await recordSession();
    // The live side stops adding commands (no driver, loop or sweeper) but still answers outcome queries.
    // All four at once: each stops, then starts in REPLAY_MODE, on its own (waiting in turn cost three restarts).
    await Promise.all(
      (['cluster-scheduler', 'pod-lifecycle', 'queue-broker', 'endpoint-autoscaler'] as const).map((app) =>
        system.restart(app, { REPLAY_MODE: 'true' }),
      ),
    );
  }, 240_000);

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('lists recorded commands with filters, as a table and as JSON lines', async () => {
    const all = await cli(['list', '--json']);
    expect(all).toMatchObject({ code: 0 });
    const lines = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; subject: string; actor: { userId: string } });
    expect(lines.length).toBeGreaterThan(30);
    expect(lines.map((l) => l.seq)).toEqual([...lines.map((l) => l.seq)].sort((a, b) => a - b));
    const subjects = new Set(lines.map((l) => l.subject));
    for (const s of [
      'volume.cmd.create',
      'registry-auth.cmd.create',
      'pod.cmd.create',
      'pod.cmd.observe',
      'cluster.cmd.create',
      'endpoint.cmd.save',
      'job.cmd.submit',
      'worker.cmd.done',
    ]) {
      expect(subjects).toContain(s);
    }

    const pods = await cli(['list', '--json', '--subject', 'pod.cmd.*', '--actor', userId]);
    const podLines = pods.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { subject: string; actor: { userId: string } });
    expect(podLines.length).toBeGreaterThanOrEqual(6);
    expect(podLines.every((l) => l.subject.startsWith('pod.cmd.') && l.actor.userId === userId)).toBe(true);

    const range = await cli(['list', '--from-seq', '3', '--to-seq', '5']);
    expect(range.stdout.split('\n')[0]).toMatch(/^SEQ\s+RECORDED\s+SUBJECT\s+COMMAND ID\s+ACTOR/);
    expect(
      range.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => Number(l.split(/\s+/)[0])),
    ).toEqual([3, 4, 5]);

    const bad = await cli(['list', '--from-seq', 'zero']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from-seq must be a stream sequence');
  });

  it('shows one command with its outcome and the secrets redacted', async () => {
    const lines = (await cli(['list', '--json', '--subject', 'registry-auth.cmd.create'])).stdout
      .trim()
      .split('\n');
    const { seq, commandId } = JSON.parse(lines[0]) as { seq: number; commandId: string };
    const shown = await cli(['show', String(seq), '--json']);
    expect(shown).toMatchObject({ code: 0 });
    const body = JSON.parse(shown.stdout) as {
      applied: string;
      outcome: { ok: boolean };
      envelope: { commandId: string; payload: Record<string, unknown> };
    };
    expect(body.envelope.commandId).toBe(commandId);
    expect(body.applied).toBe('yes');
    expect(body.outcome.ok).toBe(true);
    expect(body.envelope.payload).toMatchObject({ name: 'hub', passwordSealed: '[redacted]' });

    const pod = JSON.parse(
      (await cli(['list', '--json', '--subject', 'pod.cmd.create'])).stdout.split('\n')[0],
    ) as { commandId: string };
    const text = await cli(['show', pod.commandId]);
    expect(text.stdout).toMatch(/applied\s+yes/);
    expect(text.stdout).not.toContain('tok-secret');
    expect((await cli(['show', '999999'])).code).toBe(1);
  });

  it('replays a range: a dry run and real runs find everything applied and apply nothing', async () => {
    expect((await cli(['replay'])).code).toBe(2); // no selection: refused
    const dry = await cli(['replay', '--all', '--dry-run', '--json']);
    expect(dry).toMatchObject({ code: 0 });
    const drySummary = JSON.parse(dry.stdout) as { selected: number; wouldApply: number; skipped: number };
    expect(drySummary.wouldApply).toBe(0);
    expect(drySummary.skipped).toBe(drySummary.selected);
    for (let i = 0; i < 2; i++) {
      const again = await cli(['replay', '--from-seq', '1', '--to-seq', '40']);
      expect(again).toMatchObject({ code: 0 });
      expect(again.stdout).toContain('replayed 40: 0 applied, 40 skipped (already applied), 0 failed');
    }
  });

  it('rebuilds the whole stream into fresh schemas that equal the live ones; a second pass applies nothing', async () => {
    const result = await cli(['rebuild', '--json']);
    expect(result.stderr).not.toContain('replay: ');
    const report = JSON.parse(result.stdout) as {
      commands: number;
      firstPass: { applied: number; failed: number; failures: unknown[] };
      secondPass: { applied: number; failed: number; skipped: number };
      outcomeMismatches: unknown[];
      comparison: {
        tables: { table: string; rows: number; identical: boolean; skipped?: boolean }[];
        differences: unknown[];
      };
    };
    expect(report.comparison.differences).toEqual([]);
    expect(report.outcomeMismatches).toEqual([]);
    expect(report.firstPass.applied).toBeGreaterThan(30);
    expect(report.secondPass).toMatchObject({ applied: 0, failed: 0 });
    const compared = report.comparison.tables.filter((t) => !t.skipped);
    for (const table of [
      'pod_lifecycle.pods',
      'cluster_scheduler.clusters',
      'cluster_scheduler.reservations',
      'queue_broker.jobs',
      'endpoint_autoscaler.endpoints',
    ]) {
      expect(compared.map((t) => t.table)).toContain(table);
    }
    expect(compared.find((t) => t.table === 'queue_broker.jobs')?.rows).toBe(13);
    expect(result).toMatchObject({ code: 0 });
    // Nothing of it is left: no stream of its prefix, the payload bucket included, and no database.
    const { prefix, database } = report as unknown as { prefix: string; database: string };
    expect(await streamsOf(prefix)).toEqual([]);
    expect(await databaseExists(database)).toBe(false);
    const text = await cli(['rebuild']);
    expect(text.stdout).toContain('RESULT: no differences');
  }, 300_000);

  it('stops on SIGTERM between two requests and removes its apps, database, streams and bucket', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/tools/replay/replay.mjs'), 'rebuild'], {
      env: { ...process.env, ...appEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Its apps are up once it reads the stream.
    await until('the rebuild reads the stream', () => /rebuild: \d+ commands/.test(stderr), WAIT_MS);
    const [, database, prefix] = /database (\S+), NATS prefix (\S+)/.exec(stderr) ?? [];
    const apps = await descendants(child.pid!);
    // The five owner apps: the gateway owns the accounts and keeps the audit trail from the owners' events.
    expect(apps).toHaveLength(5);
    expect(await streamsOf(prefix)).not.toEqual([]);
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(stderr).toContain('replay: stopped by SIGTERM');
    for (const pid of apps) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    expect(await streamsOf(prefix)).toEqual([]);
    expect(await databaseExists(database)).toBe(false);
  }, 120_000);

  it('stops on Ctrl-C under `npm run replay -- rebuild` (the terminal signals npm, the tool and its apps) and leaves nothing', async () => {
    // A process group of its own, signalled as a whole, as a terminal's Ctrl-C is: npm forwards the SIGINT to
    // the tool as well, so the tool gets it twice at once (and its apps once, directly).
    const npm = spawn('npm', ['run', '--silent', 'replay', '--', 'rebuild'], {
      cwd: ROOT,
      env: { ...process.env, ...appEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    npm.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    npm.stdout.resume();
    const exited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
    await until('the rebuild reads the stream', () => /rebuild: \d+ commands/.test(stderr), WAIT_MS);
    const [, database, prefix] = /database (\S+), NATS prefix (\S+)/.exec(stderr) ?? [];
    const processes = await descendants(npm.pid!);
    expect(processes.length).toBeGreaterThanOrEqual(6); // the tool (maybe under a shell) and its five apps
    process.kill(-npm.pid!, 'SIGINT');
    await exited;
    expect(stderr).toContain('replay: stopped by SIGINT');
    for (const pid of processes) {
      await until(`process ${pid} gone`, () => !existsSync(`/proc/${pid}`), WAIT_MS);
    }
    expect(await streamsOf(prefix)).toEqual([]);
    expect(await databaseExists(database)).toBe(false);
  }, 120_000);

  it('rebuilds while commands keep arriving: identical, with the later commands replayed too', async () => {
    // An endpoint of its own (the session's was deleted), with no workers: its jobs wait in the queue.
    const echo = await api<{ id: string }>('POST', '/v1/templates', {
      name: 'echo-later',
      imageName: 'test/echo-worker',
      isServerless: true,
    });
    const { saveEndpoint } = await graphql<{ saveEndpoint: { id: string } }>(
      `mutation { saveEndpoint(input: { name: "later", templateId: "${echo.body.id}", gpuIds: "AMPERE_16", workersMin: 0, workersMax: 0 }) { id } }`,
    );
    const endpoint = saveEndpoint.id;
    let issuing = true;
    let issued = 0;
    // Some 15 commands a second, as a deployment in use sends them; flat out, on two cores, the traffic took most
    // of the CPU the rebuild needs (64 s for this test against 15 s for the quiet rebuild above).
    const traffic = (async () => {
      for (let i = 0; issuing; i++) {
        const job = await api('POST', `/v2/${endpoint}/run`, { input: { later: i } });
        const template = await api('POST', '/v1/templates', { name: `later-${i}`, imageName: 'alpine:3' });
        expect([job.status, template.status]).toEqual([200, 201]);
        issued += 2;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let result: CliResult;
    try {
      result = await cli(['rebuild', '--json']);
    } finally {
      issuing = false;
      await traffic;
    }
    const report = JSON.parse(result.stdout) as {
      outcomeMismatches: unknown[];
      later: { recorded: number; replayed: number; pendingLive: number };
      comparison: { differences: unknown[] };
    };
    expect(report.comparison.differences).toEqual([]);
    expect(report.outcomeMismatches).toEqual([]);
    expect(issued).toBeGreaterThan(0);
    expect(report.later.recorded).toBeGreaterThan(0);
    expect(report.later.replayed).toBeGreaterThan(0);
    expect(report.later.replayed + report.later.pendingLive).toBe(report.later.recorded);
    expect(result).toMatchObject({ code: 0 });
  }, 300_000);

  /** Every process below `pid` (children, theirs, ...). */
  async function descendants(pid: number): Promise<number[]> {
    const children = await run('pgrep', ['-P', String(pid)]).then(
      ({ stdout }) => stdout.trim().split('\n').filter(Boolean).map(Number),
      () => [] as number[],
    );
    return [...children, ...(await Promise.all(children.map(descendants))).flat()];
  }

  async function streamsOf(prefix: string): Promise<string[]> {
    const nc = await connect({ servers: testEnv().natsUrl.split(',') });
    try {
      const names: string[] = [];
      for await (const name of (await jetstreamManager(nc)).streams.names()) {
        if (name.startsWith(`${prefix}_`) || name === `KV_${prefix}_payloads`) names.push(name);
      }
      return names;
    } finally {
      await nc.close();
    }
  }

  async function databaseExists(name: string): Promise<boolean> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      return rows.length > 0;
    } finally {
      await client.end();
    }
  }
});
