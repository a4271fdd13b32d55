import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobDetail, JobPage, JobView, TemplateView } from '@app/contracts';
import { createKey, userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { ROOT } from '../support/paths.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const CLI = join(ROOT, 'dist/tools/gpucp/gpucp.cli.js');

/** /run results are kept this long here (30 min by default), so the test sees them expire. */
const RUN_RETENTION_MS = 4000;

/**
 * An endpoint's job history end to end: the five apps, the local runtime running a real worker process (it prints a
 * line as each job starts and ends). Jobs run through the queue routes are listed newest first with their worker
 * and previews, filtered and paged; one job comes whole with its phases, leases and the worker's log lines around
 * it; read-only keys read, other accounts do not; once the result expired (/status 404) the job stays listed
 * without its payloads.
 */
describe('job history', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let key: string;
  let readKey: string;
  let otherKey: string;
  let endpointId: string;
  const jobIds: string[] = [];

  const api = async <T>(
    method: string,
    path: string,
    body?: unknown,
    as = key,
  ): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${system.url('gateway')}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as T };
  };

  async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  const jobs = (query = '', as = key) =>
    api<JobPage>('GET', `/v2/serverless/${endpointId}/jobs${query}`, undefined, as);

  /** gpucp run as a process, configured only through GPUCP_API_URL and GPUCP_API_KEY. */
  const gpucp = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { env: { PATH: process.env.PATH, GPUCP_API_URL: system.url('gateway'), GPUCP_API_KEY: readKey } },
        (error, stdout, stderr) => {
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
        },
      );
    });

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'job-history-e2e-'));
    db = await createTestDatabase('job_history');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: echoWorkerCatalog(dir),
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
        },
        'endpoint-autoscaler': {
          AUTOSCALER_TICK_MS: '200',
          QUEUE_PUBLIC_URL: GATEWAY_ORIGIN,
          WORKER_PING_INTERVAL_MS: '1000',
        },
        'queue-broker': { RUN_RETENTION_MS: String(RUN_RETENTION_MS) },
      },
    });
    key = (await userWithKey(db.url, 'history')).key;
    readKey = (await createKey(db.url, 'history', 'read')).key;
    otherKey = (await userWithKey(db.url, 'someone-else')).key;
    const template = (
      await api<TemplateView>('POST', '/v1/templates', {
        name: 'echo',
        imageName: 'test/echo-worker',
        isServerless: true,
      })
    ).body;
    const saved = await fetch(`${system.url('gateway')}/graphql?api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { saveEndpoint(input: { name: "history", templateId: "${template.id}", gpuIds: "AMPERE_16", workersMin: 1, workersMax: 1, idleTimeout: 60, scalerValue: 1 }) { id } }`,
      }),
    });
    endpointId = ((await saved.json()) as { data: { saveEndpoint: { id: string } } }).data.saveEndpoint.id;
    for (const n of [1, 2, 3]) {
      const run = await api<JobView>('POST', `/v2/${endpointId}/run`, {
        input: { n, sleepMs: 300, text: 'y'.repeat(300) },
      });
      expect(run.status).toBe(200);
      jobIds.push(run.body.id);
      await until(`job ${n} completed`, async () => {
        const status = await api<JobView>('GET', `/v2/${endpointId}/status/${run.body.id}`);
        return status.body.status === 'COMPLETED';
      });
    }
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('lists the jobs newest first with their worker, timings and previews cut with their sizes', async () => {
    const page = await jobs();
    expect(page.status).toBe(200);
    expect(page.body.jobs.map((j) => j.id)).toEqual([...jobIds].reverse());
    const [newest] = page.body.jobs;
    expect(newest).toMatchObject({ status: 'COMPLETED', attempts: 1, retries: 0, resultExpired: false });
    expect(newest.workerId).toEqual(expect.any(String));
    expect(newest.executionTime).toBeGreaterThanOrEqual(300);
    expect(newest.input).toMatchObject({ truncated: true });
    expect(newest.input!.preview).toHaveLength(200);
    expect(newest.input!.bytes).toBeGreaterThan(300);
    expect(newest.output!.bytes).toBeGreaterThan(300);
  });

  it('filters by status and time, pages with an opaque cursor, and names each bad parameter (422)', async () => {
    expect((await jobs('?status=FAILED,TIMED_OUT')).body.jobs).toEqual([]);
    expect((await jobs('?status=completed')).body.jobs).toHaveLength(3);
    expect((await jobs(`?from=${new Date(Date.now() + 60_000).toISOString()}`)).body.jobs).toEqual([]);
    const first = await jobs('?limit=2');
    expect(first.body.jobs.map((j) => j.id)).toEqual([jobIds[2], jobIds[1]]);
    expect(typeof first.body.next).toBe('string');
    const second = await jobs(`?limit=2&cursor=${first.body.next}`);
    expect(second.body).toMatchObject({ next: null });
    expect(second.body.jobs.map((j) => j.id)).toEqual([jobIds[0]]);
    const bad = await api<{ errors: string[] }>(
      'GET',
      `/v2/serverless/${endpointId}/jobs?status=DONE&limit=500&from=yesterday&cursor=nope`,
    );
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([
      expect.stringMatching(/^status must be one or more of IN_QUEUE, /),
      expect.stringMatching(/^from must be an ISO 8601 time/),
      expect.stringMatching(/^limit must be an integer from 1 to 100/),
      'cursor is not the `next` of a page of this list',
    ]);
  });

  it('gives one job whole: input, output, phases, its lease and the worker’s log lines around it', async () => {
    const reply = await api<JobDetail>('GET', `/v2/serverless/${endpointId}/jobs/${jobIds[1]}`);
    expect(reply.status).toBe(200);
    const job = reply.body;
    expect(job).toMatchObject({ id: jobIds[1], status: 'COMPLETED', input: { n: 2, sleepMs: 300 } });
    expect(job.output).toMatchObject({ echo: { n: 2 }, workerId: job.workerId });
    expect(job.phases.running).toBeGreaterThanOrEqual(300);
    expect(job.phases.total).toBeGreaterThanOrEqual(job.phases.running!);
    expect(job.leases).toEqual([
      expect.objectContaining({ attempt: 1, workerId: job.workerId, outcome: 'COMPLETED' }),
    ]);
    const lines = job.logs!.lines.map((l) => l.line);
    expect(lines).toEqual(expect.arrayContaining([`job ${jobIds[1]} started`, `job ${jobIds[1]} done`]));
    expect(job.logs!.podId).toBe(job.workerId);
    expect((await api('GET', `/v2/serverless/${endpointId}/jobs/not-a-job`)).status).toBe(404);
  });

  it('reads with a read-only key; another account gets 403', async () => {
    expect((await jobs('', readKey)).body.jobs).toHaveLength(3);
    expect((await jobs('', otherKey)).status).toBe(403);
    const other = await api('GET', `/v2/serverless/${endpointId}/jobs/${jobIds[0]}`, undefined, otherKey);
    expect(other.status).toBe(403);
  });

  it('gpucp lists the jobs (following the cursor past a page) and shows one with its log lines', async () => {
    const listed = await gpucp([
      '--json',
      'jobs',
      'list',
      endpointId,
      '--status',
      'COMPLETED',
      '--since',
      '1h',
    ]);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((j) => j.id)).toEqual([...jobIds].reverse());
    const table = await gpucp(['jobs', 'list', endpointId, '--limit', '2']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +STATUS +CREATED +DELAY_MS +EXEC_MS +WORKER +INPUT$/);
    expect(table.stdout.trim().split('\n')).toHaveLength(3);
    const shown = await gpucp(['job', endpointId, jobIds[2], '--logs']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`id: ${jobIds[2]}`);
    expect(shown.stdout).toContain('status: COMPLETED');
    expect(shown.stdout).toMatch(new RegExp(`stdout job ${jobIds[2]} started`));
    const bad = await gpucp(['jobs', 'list', endpointId, '--since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since must be an ISO 8601 time or a duration');
  });

  it('keeps a job listed without its payloads once its result expired and /status answers 404', async () => {
    await until('the first result expired', async () => {
      const status = await api('GET', `/v2/${endpointId}/status/${jobIds[0]}`);
      return status.status === 404;
    });
    await until('the first job moved to the history', async () => {
      const page = await jobs();
      const first = page.body.jobs.find((j) => j.id === jobIds[0]);
      return first?.resultExpired && first.input === null ? first : null;
    });
    const job = (await api<JobDetail>('GET', `/v2/serverless/${endpointId}/jobs/${jobIds[0]}`)).body;
    expect(job).toMatchObject({ status: 'COMPLETED', resultExpired: true });
    expect(job).not.toHaveProperty('input');
    expect(job).not.toHaveProperty('output');
    expect(job.inputBytes).toBeGreaterThan(300);
    expect(job.logs!.lines.map((l) => l.line)).toContain(`job ${jobIds[0]} started`);
  });
});
