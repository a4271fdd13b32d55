import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { EndpointV2View, TemplateView, WorkerList } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';
import {
  expectLbMetricCharts,
  expectNoSeriousAxeViolations,
  screenshotFor,
  sendLbRequests,
  showChartTables,
} from './console-endpoints.e2e-helpers.js';
import { CHROMIUM, CHROMIUM_ARGS } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

const FAILURES = join(ROOT, 'test-results', 'console');
/** `CONSOLE_SCREENSHOTS=docs/console` (scripts/console-screenshots.mjs): the pages' pictures go there too. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? join(ROOT, process.env.CONSOLE_SCREENSHOTS) : null;

/**
 * An endpoint's page in Chromium against the five apps, the local runtime running the SDK's example workers as
 * real processes: a streaming test job keeps every chunk; a load-balancing endpoint made in the form shows its
 * URL, its workers, a request tester and its requests in its metrics, and never asks /health; a queue endpoint's URL and snippets (the curl and
 * runpod-sdk ones copied and run); deleting an endpoint with a live worker by scaling it to zero first.
 */
describe('console endpoint pages, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let key: string;
  let streaming: EndpointV2View;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  /** Every /v2/{id}/health the console asked. */
  const healthCalls: string[] = [];

  async function step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      mkdirSync(FAILURES, { recursive: true });
      const file = join(FAILURES, `endpoints-${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
      await page?.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      (error as Error).message += `\n(screenshot: ${file})`;
      throw error;
    }
  }

  const snapshot = (name: string, of?: Locator) => screenshotFor(SCREENSHOTS, page, name, of);

  const expectAccessible = (where: string) => expectNoSeriousAxeViolations(page, where);

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };

  const template = (name: string, imageName: string) =>
    call<TemplateView>('POST', '/v1/templates', { name, imageName, isServerless: true });

  async function openEndpoint(name: string): Promise<void> {
    await page.goto(`${base}/console/#/endpoints`);
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { level: 2, name }).waitFor();
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    db = await createTestDatabase('console_endpoints');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        gateway: { LB_REPORT_MS: '200', LB_METRICS_FLUSH_MS: '300' },
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: resolve('apps/pod-lifecycle/local-images.json'),
          LOCAL_PODS_DIR: join(mkdtempSync(join(tmpdir(), 'console-endpoints-')), 'pods'),
          LOCAL_READY_MS: '100',
          LB_PING_INTERVAL_MS: '200',
        },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '300' },
      },
    });
    base = system.url('gateway');
    // The workers the autoscaler starts call the gateway back at its real address.
    await system.restart('endpoint-autoscaler', {
      QUEUE_PUBLIC_URL: new URL(base).origin,
      WORKER_PING_INTERVAL_MS: '1000',
    });
    key = (await userWithKey(db.url, 'console-endpoints')).key;
    await template('lb', 'gpucp/lb-worker');
    const stream = await template('stream', 'gpucp/stream-worker');
    streaming = await call<EndpointV2View>('POST', '/v2/serverless', {
      name: 'tokens',
      type: 'QUEUE',
      templateId: stream.id,
      gpu: { pools: ['AMPERE_16'], count: 1 },
      workers: { min: 1, max: 1, idleTimeout: 60 },
      scaling: { type: 'QUEUE_DELAY', queueDelay: 1 },
    });

    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'console-endpoints-')), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 900 },
      colorScheme: 'light',
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
    page.on('request', (request) => {
      if (/^\/v2\/[^/]+\/health$/.test(new URL(request.url()).pathname)) healthCalls.push(request.url());
    });
    await page.goto(`${base}/console/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('keeps every chunk of a streaming test job, in order, once each', async () => {
    await step('stream', async () => {
      await openEndpoint('tokens');
      await page.getByLabel('Input (JSON)').fill('{"prompt": "a b c d e f g h", "delayMs": 1200}');
      await page.getByRole('button', { name: 'Run job' }).click();
      const output = page.getByRole('table', { name: 'Jobs' }).locator('code.output');
      // While it streams (8 chunks 1.2 s apart, several reads of /stream), what is shown is every chunk so far.
      await output.filter({ hasText: '"index":3' }).waitFor({ timeout: 60_000 });
      const shown = (await output.textContent()) ?? '';
      const chunks = shown.split(' ').map((c) => JSON.parse(c) as { text: string; index: number });
      expect(chunks.length).toBeGreaterThanOrEqual(4);
      expect(chunks).toEqual(chunks.map((_, index) => ({ text: 'abcdefgh'[index], index })));
      await page.getByRole('table', { name: 'Jobs' }).getByText('COMPLETED').waitFor({ timeout: 30_000 });
    });
  }, 120_000);

  it('creates a load-balancing endpoint: its URL, workers, request tester and metrics; never asks /health', async () => {
    await step('lb', async () => {
      await page.goto(`${base}/console/#/endpoints`);
      await page.getByRole('heading', { level: 1, name: 'Serverless' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('api');
      await page.getByRole('button', { name: /Type/ }).click();
      await page.getByRole('option', { name: 'Load balancing (HTTP)' }).click();
      await page.getByLabel('Template').selectOption({ label: 'lb (gpucp/lb-worker)' });
      await page.getByLabel('Workers min').fill('1');
      await page.getByLabel('Workers max').fill('1');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByRole('heading', { level: 2, name: 'api' }).waitFor();
      const id = page.url().split('/').pop()!;
      await expect(call<EndpointV2View>('GET', `/v2/serverless/${id}`)).resolves.toMatchObject({
        type: 'LOAD_BALANCER',
      });
      // Its worker, as its /ping says (the page refreshes several times meanwhile: never asking /health).
      const workers = page.getByRole('table', { name: 'Workers', exact: true });
      await workers.getByText('IDLE').waitFor({ timeout: 60_000 });
      await expect(workers.locator('tbody tr').count()).resolves.toBe(1);
      expect(healthCalls.filter((url) => url.includes(`/v2/${id}/`))).toEqual([]);
      // The overview lists it without asking its health either.
      await page.goto(`${base}/console/#/`);
      await page.getByRole('row', { name: /^api load balancing/ }).waitFor();
      await page.waitForTimeout(1000);
      expect(healthCalls.filter((url) => url.includes(`/v2/${id}/`))).toEqual([]);
      await page.goto(`${base}/console/#/endpoints/${id}`);

      const calling = page.getByRole('region', { name: 'Calling it' });
      await calling.getByText(`${base}/lb/${id}/`, { exact: true }).waitFor();
      await expect(calling.textContent()).resolves.toContain(`curl ${base}/lb/${id}/ -H`);
      await expect(page.getByRole('button', { name: 'Run job' }).count()).resolves.toBe(0);

      const tester = page.getByRole('region', { name: 'Test request' });
      await tester.getByRole('button', { name: /Method/ }).click();
      await page.getByRole('option', { name: 'POST', exact: true }).click();
      await tester.getByLabel('Path').fill('/echo');
      await tester.getByLabel('Body').fill('hello from the console');
      await tester.getByRole('button', { name: 'Send request' }).click();
      const answer = page.getByRole('region', { name: 'Response' });
      await answer.getByText(/^200 OK in \d+ ms$/).waitFor({ timeout: 30_000 });
      await expect(
        answer
          .getByRole('row', { name: /^content-type/ })
          .getByRole('cell')
          .textContent(),
      ).resolves.toMatch(/application\/json/);
      const body = JSON.parse((await answer.locator('pre code').textContent()) ?? '') as { body: string };
      expect(body.body).toBe('hello from the console');

      // Its metrics: the tester's request and three more answered 200, one 404, as rates per minute (1 h window).
      const sent = sendLbRequests(`${base}/lb/${id}`, key, ['/', '/', '/', '/missing']);
      await expect(sent).resolves.toEqual([200, 200, 200, 404]);
      const metrics = page.getByRole('region', { name: 'Metrics' });
      await expectLbMetricCharts(metrics, { status2xx: 4, status4xx: 1 });
      await expectAccessible('lb endpoint');
      await snapshot('endpoint-lb');
      await showChartTables(metrics, 3);
      await expectAccessible('lb endpoint metrics as tables');
    });
  }, 120_000);

  it("shows a queue endpoint's URL and snippets; the copied curl and runpod-sdk snippets run as they are", async () => {
    await step('snippets', async () => {
      await openEndpoint('tokens');
      const calling = page.getByRole('region', { name: 'Calling it' });
      await calling.getByText(`${base}/v2/${streaming.id}`, { exact: true }).waitFor();
      const text = (await calling.textContent()) ?? '';
      expect(text).toContain(`runpod.endpoint_url_base = "${base}/v2"`);
      expect(text).toContain(`endpoint = runpod.Endpoint("${streaming.id}")`);
      expect(text).toContain(`baseUrl: "${base}/v2"`);
      let clipboard = '';
      const copied = async (what: string) => {
        await calling.getByRole('button', { name: `Copy ${what}` }).click();
        await calling.getByRole('status').filter({ hasText: 'Copied' }).first().waitFor();
        const before = clipboard;
        clipboard = await until('the clipboard to change', async () => {
          const text = await page.evaluate<string>('navigator.clipboard.readText()');
          return text !== before && text;
        });
        return clipboard;
      };
      await expect(copied('the URL')).resolves.toBe(`${base}/v2/${streaming.id}`);
      mkdirSync(join(ROOT, 'test-results'), { recursive: true });
      const env = { ...process.env, RUNPOD_API_KEY: key };
      const curl = await copied('the curl snippet');
      const byCurl = JSON.parse(execFileSync('bash', ['-c', curl], { env, encoding: 'utf8' })) as {
        status: string;
      };
      expect(byCurl.status).toBe('COMPLETED');
      const js = await copied('the JavaScript (runpod-sdk) snippet');
      const file = join(ROOT, 'test-results', 'snippet.mjs'); // in the repository: `runpod-sdk` resolves
      writeFileSync(file, js);
      const byJs = execFileSync(process.execPath, [file], { env, encoding: 'utf8' });
      expect(byJs).toContain('COMPLETED');
      await expectAccessible('snippets');
      await snapshot('endpoint-snippets', calling);
    });
  }, 120_000);

  it('deletes an endpoint with a live worker: scaled to zero, its workers waited for, then deleted', async () => {
    await step('delete', async () => {
      await until(
        'a live worker',
        async () => {
          const list = await call<WorkerList>('GET', `/v2/serverless/${streaming.id}/workers`);
          return list.workers.length === 1;
        },
        60_000,
      );
      const calls: string[] = [];
      page.on('response', (response) => {
        const path = new URL(response.url()).pathname;
        if (path.startsWith(`/v2/serverless/${streaming.id}`) && response.request().method() !== 'GET') {
          calls.push(`${response.request().method()} ${response.status()}`);
        } else if (path === `/v2/serverless/${streaming.id}/workers` && calls.length > 0) {
          calls.push('GET workers');
        }
      });
      await openEndpoint('tokens');
      await page.getByRole('button', { name: 'Scale to zero and delete' }).click();
      const dialog = page.getByRole('alertdialog');
      await dialog.getByText(/scaled to zero first/).waitFor();
      await snapshot('endpoint-delete-confirm');
      await dialog.getByRole('button', { name: 'Scale to zero and delete' }).click();
      await page
        .getByRole('status')
        .getByText(/Waiting for 1 worker to stop|Scaling to zero/)
        .waitFor();
      await snapshot('endpoint-delete-progress');
      await page.getByRole('heading', { level: 2, name: 'Endpoints' }).waitFor({ timeout: 60_000 });
      await page.getByRole('link', { name: 'tokens' }).waitFor({ state: 'detached' });
      expect((await api(base, key, 'GET', `/v2/serverless/${streaming.id}`)).status).toBe(404);
      // Scaled to zero, its workers listed until none was left, then deleted (once: it was not refused).
      expect(calls[0]).toBe('PATCH 200');
      expect(calls.length > 2 && calls.slice(1, -1).every((c) => c === 'GET workers')).toBe(true);
      expect(calls.at(-1)).toBe('DELETE 204');
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  }, 120_000);
});
