import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { JobView, TemplateView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { ROOT } from '../support/paths.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';
import { CHROMIUM, CHROMIUM_ARGS } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

const FAILURES = join(ROOT, 'test-results', 'console');
/** `CONSOLE_SCREENSHOTS=docs/console` (scripts/console-screenshots.mjs): the pages' pictures go there too. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? join(ROOT, process.env.CONSOLE_SCREENSHOTS) : null;

/**
 * An endpoint's jobs in the console, in Chromium, against the five apps and a real worker process (the local
 * runtime runs the echo worker, which prints a line as each job starts and ends): the list newest first with a
 * test job run from the page, its status filter, and a job's page with its input, output, phases, attempts, its
 * worker linked to its pod and the worker's lines around it; each view checked by axe under the CSP.
 */
describe('console endpoint jobs, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let key: string;
  let endpointId: string;
  const apiJobs: string[] = [];
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  async function step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      mkdirSync(FAILURES, { recursive: true });
      const file = join(FAILURES, `jobs-${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
      await page?.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      (error as Error).message += `\n(screenshot: ${file})`;
      throw error;
    }
  }

  async function snapshot(name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  async function expectAccessible(where: string): Promise<void> {
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    const serious = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${where}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(serious).toEqual([]);
  }

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };

  const rows = () => page.getByRole('table', { name: 'Job history' }).locator('tbody tr');

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
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'console-jobs-')), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 900 },
      colorScheme: 'light',
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
    await page.goto(`${base}/console/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('lists the jobs newest first, a test job run from the page among them, filtered by status', async () => {
    await step('list', async () => {
      await page.goto(`${base}/console/#/endpoints/${endpointId}`);
      await page.getByRole('heading', { level: 2, name: 'Jobs' }).waitFor();
      await until('the two jobs listed', async () => (await rows().count()) === 2);
      await expect(rows().first().getByRole('link').getAttribute('href')).resolves.toBe(
        `#/endpoints/${endpointId}/jobs/${apiJobs[1]}`,
      );
      await page.getByLabel('Input (JSON)').fill('{"from": "the console", "sleepMs": 200}');
      await page.getByRole('button', { name: 'Run job' }).click();
      // Listed by the page's refresh, newest first, and finished.
      await until('the test job listed and completed', async () => {
        if ((await rows().count()) !== 3) return false;
        const first = (await rows().first().textContent()) ?? '';
        return first.includes('COMPLETED') && first.includes('the console');
      });
      await expectAccessible('jobs');
      await snapshot('endpoint-jobs');

      await page.getByRole('button', { name: /Status/ }).click();
      await page.getByRole('option', { name: 'FAILED' }).click();
      await page.getByText('No jobs match.').waitFor();
      await page.getByRole('button', { name: /Status/ }).click();
      await page.getByRole('option', { name: 'Any status' }).click();
      await until('all three again', async () => (await rows().count()) === 3);
    });
  }, 90_000);

  it("shows a job whole: input, output, phases, attempts, the worker's pod and its lines around the job", async () => {
    await step('detail', async () => {
      await rows().first().getByRole('link').click();
      const heading = page.getByRole('heading', { level: 2, name: /^Job / });
      await heading.waitFor();
      const jobId = ((await heading.textContent()) ?? '').replace(/^Job /, '');
      expect(jobId).not.toBe('');
      const input = page.getByRole('region', { name: 'Input' });
      await expect(input.textContent()).resolves.toContain('"from": "the console"');
      await expect(page.getByRole('region', { name: 'Output' }).textContent()).resolves.toContain('"echo"');
      const worker = await call<{ workerId: string }>('GET', `/v2/serverless/${endpointId}/jobs/${jobId}`);
      // In the job's facts, and again in its attempt's row.
      const link = page.locator('dl').getByRole('link', { name: worker.workerId, exact: true });
      await expect(link.getAttribute('href')).resolves.toBe(`#/pods/${worker.workerId}`);
      await expect(page.getByRole('table', { name: 'Attempts' }).textContent()).resolves.toContain(
        'COMPLETED',
      );
      const logs = page.getByRole('log', { name: 'Log lines' });
      await expect(logs.textContent()).resolves.toContain(`job ${jobId} started`);
      await expect(logs.textContent()).resolves.toContain(`job ${jobId} done`);
      await expectAccessible('job');
      await snapshot('endpoint-job');
      await page.getByRole('link', { name: '← The endpoint' }).click();
      await page.getByRole('heading', { level: 2, name: 'Jobs' }).waitFor();
    });
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
