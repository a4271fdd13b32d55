import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobView, TemplateView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';
import { openConsole, type ConsoleBrowser } from './console-browser.e2e-helpers.js';
import { CHROMIUM } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

/**
 * An endpoint's jobs in the console, in Chromium, against the five apps and a real worker process (the local
 * runtime runs the echo worker, which prints a line as each job starts and ends): the list newest first with a
 * test job run from the page, its status filter, and a job's page with its input, output, phases, attempts, its
 * worker linked to its pod and the worker's lines around it; each view checked by axe under the CSP.
 */
describe('console endpoint jobs, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let browser: ConsoleBrowser;
  let base: string;
  let key: string;
  let endpointId: string;
  const apiJobs: string[] = [];

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };

  const rows = () => browser.page.getByRole('table', { name: 'Job history' }).locator('tbody tr');

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    const dir = mkdtempSync(join(tmpdir(), 'console-jobs-e2e-'));
    db = await createTestDatabase('console_jobs');
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
      },
    });
    base = system.url('gateway');
    key = (await userWithKey(db.url, 'console-jobs')).key;
    const template = await call<TemplateView>('POST', '/v1/templates', {
      name: 'echo',
      imageName: 'test/echo-worker',
      isServerless: true,
    });
    const saved = await call<{ data: { saveEndpoint: { id: string } } }>('POST', '/graphql', {
      query: `mutation { saveEndpoint(input: { name: "echo", templateId: "${template.id}", gpuIds: "AMPERE_16", workersMin: 1, workersMax: 1, idleTimeout: 60, scalerValue: 1 }) { id } }`,
    });
    endpointId = saved.data.saveEndpoint.id;
    for (const n of [1, 2]) {
      const run = await call<JobView>('POST', `/v2/${endpointId}/run`, { input: { n, sleepMs: 200 } });
      apiJobs.push(run.id);
      await until(`job ${n} completed`, async () => {
        const status = await call<JobView>('GET', `/v2/${endpointId}/status/${run.id}`);
        return status.status === 'COMPLETED';
      });
    }
    browser = await openConsole(base, key, 'jobs');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('lists the jobs newest first, a test job run from the page among them, filtered by status', async () => {
    await browser.step('list', async () => {
      await browser.page.goto(`${base}/console/#/endpoints/${endpointId}`);
      await browser.page.getByRole('heading', { level: 2, name: 'Jobs' }).waitFor();
      await until('the two jobs listed', async () => (await rows().count()) === 2);
      await expect(rows().first().getByRole('link').getAttribute('href')).resolves.toBe(
        `#/endpoints/${endpointId}/jobs/${apiJobs[1]}`,
      );
      await browser.page.getByLabel('Input (JSON)').fill('{"from": "the console", "sleepMs": 200}');
      await browser.page.getByRole('button', { name: 'Run job' }).click();
      // Listed by the page's refresh, newest first, and finished.
      await until('the test job listed and completed', async () => {
        if ((await rows().count()) !== 3) return false;
        const first = (await rows().first().textContent()) ?? '';
        return first.includes('COMPLETED') && first.includes('the console');
      });
      await browser.expectAccessible('jobs');
      await browser.snapshot('endpoint-jobs');

      await browser.page.getByRole('button', { name: /Status/ }).click();
      await browser.page.getByRole('option', { name: 'FAILED' }).click();
      await browser.page.getByText('No jobs match.').waitFor();
      await browser.page.getByRole('button', { name: /Status/ }).click();
      await browser.page.getByRole('option', { name: 'Any status' }).click();
      await until('all three again', async () => (await rows().count()) === 3);
    });
  }, 90_000);

  it("shows a job whole: input, output, phases, attempts, the worker's pod and its lines around the job", async () => {
    await browser.step('detail', async () => {
      await rows().first().getByRole('link').click();
      const heading = browser.page.getByRole('heading', { level: 2, name: /^Job / });
      await heading.waitFor();
      const jobId = ((await heading.textContent()) ?? '').replace(/^Job /, '');
      expect(jobId).not.toBe('');
      const input = browser.page.getByRole('region', { name: 'Input' });
      await expect(input.textContent()).resolves.toContain('"from": "the console"');
      await expect(browser.page.getByRole('region', { name: 'Output' }).textContent()).resolves.toContain(
        '"echo"',
      );
      const worker = await call<{ workerId: string }>('GET', `/v2/serverless/${endpointId}/jobs/${jobId}`);
      // In the job's facts, and again in its attempt's row.
      const link = browser.page.locator('dl').getByRole('link', { name: worker.workerId, exact: true });
      await expect(link.getAttribute('href')).resolves.toBe(`#/pods/${worker.workerId}`);
      await expect(browser.page.getByRole('table', { name: 'Attempts' }).textContent()).resolves.toContain(
        'COMPLETED',
      );
      const logs = browser.page.getByRole('log', { name: 'Log lines' });
      await expect(logs.textContent()).resolves.toContain(`job ${jobId} started`);
      await expect(logs.textContent()).resolves.toContain(`job ${jobId} done`);
      await browser.expectAccessible('job');
      await browser.snapshot('endpoint-job');
      await browser.page.getByRole('link', { name: '← The endpoint' }).click();
      await browser.page.getByRole('heading', { level: 2, name: 'Jobs' }).waitFor();
    });
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  }, 90_000);
});
