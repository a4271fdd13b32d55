import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import type { EndpointMetrics, ServerlessBillingList, TemplateView } from '@app/contracts';
import { userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { GATEWAY_ORIGIN, deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { openConsole, type ConsoleBrowser } from './console-browser.e2e-helpers.js';
import { CHROMIUM } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

const JOBS = 3;

/**
 * The console's charts in Chromium against the five apps (the local runtime runs the echo worker): an endpoint's
 * metrics (gauges as lines, counters as rates, latencies in ms, cold start phases) and the Usage page's spend
 * chart with names in its rows, each chart's tooltip, its table of the data, axe with the tables hidden and
 * shown, and no CSP violation (uPlot's canvas and our tooltip are styled through the CSSOM only).
 */
describe('console charts, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let browser: ConsoleBrowser;
  let base: string;
  let key: string;
  let endpointId: string;

  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** The figure of a chart by the start of its caption. */
  const chart = (scope: Locator, title: string) =>
    scope.locator('figure.time-chart', { has: browser.page.locator('figcaption', { hasText: `${title}:` }) });

  /** Moves the pointer over a chart's plot near its right end and reads the tooltip. */
  async function tooltipOf(figure: Locator): Promise<string> {
    const over = figure.locator('.u-over');
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    await browser.page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
    const tooltip = figure.locator('.chart-tooltip');
    await tooltip.waitFor({ state: 'visible' });
    return (await tooltip.textContent()) ?? '';
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    const dir = mkdtempSync(join(tmpdir(), 'console-charts-'));
    db = await createTestDatabase('console_charts');
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
        'queue-broker': { METRICS_SAMPLE_MS: '1000' },
      },
    });
    base = system.url('gateway');
    key = (await userWithKey(db.url, 'charts')).key;
    const template = await api<TemplateView>('POST', '/v1/templates', {
      name: 'echo',
      imageName: 'test/echo-worker',
      isServerless: true,
    });
    const saved = await fetch(`${base}/graphql?api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { saveEndpoint(input: { name: "chart-echo", templateId: "${template.id}", gpuIds: "AMPERE_16", workersMin: 0, workersMax: 1, idleTimeout: 120, scalerValue: 1 }) { id } }`,
      }),
    });
    endpointId = ((await saved.json()) as { data: { saveEndpoint: { id: string } } }).data.saveEndpoint.id;
    for (let i = 0; i < JOBS; i += 1) {
      const answer = await api<{ status: string }>('POST', `/v2/${endpointId}/runsync?wait=60000`, {
        input: { job: i },
      });
      expect(answer.status).toBe('COMPLETED');
    }
    // The rollups fold the jobs' events and sample the worker: wait for both before the page reads them.
    await until(
      'the jobs, the cold start and the idle worker in the metrics',
      async () => {
        const m = await api<EndpointMetrics>('GET', `/v2/serverless/${endpointId}/metrics?window=1h`);
        const completed = m.series.jobs.completed.reduce((a, b) => a + b, 0);
        return completed === JOBS && m.totals.coldStarts === 1 && Math.max(...m.series.workers.idle) >= 1;
      },
      30_000,
    );
    browser = await openConsole(base, key, 'charts');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it("draws an endpoint's gauges as lines, its counters as rates and its latencies in ms", async () => {
    await browser.step('endpoint metrics', async () => {
      await browser.page.goto(`${base}/console/#/endpoints/${endpointId}`);
      const metrics = browser.page.getByRole('region', { name: 'Metrics' });
      await metrics.waitFor();
      // Gauges: the step's peak, never a total of them.
      const workers = chart(metrics, 'Workers');
      await expect(workers.locator('figcaption').textContent()).resolves.toMatch(
        /^Workers: Running peak \d workers?, Idle peak 1 worker, Initializing peak \d workers?, Unhealthy peak 0 workers, from .+ to .+$/,
      );
      await expect(metrics.locator('figcaption', { hasText: /total/i }).count()).resolves.toBe(0);
      await expect(tooltipOf(workers)).resolves.toMatch(/Running: \d workers?Idle: \d workers?/);
      // Counters: jobs per minute (1 h window, minute steps); all three in the same minute or two.
      const jobs = chart(metrics, 'Jobs finished');
      await expect(jobs.locator('table caption').textContent()).resolves.toBe('Jobs finished, in jobs/min');
      await expect(jobs.locator('thead th').allTextContents()).resolves.toEqual([
        'Time',
        'Completed',
        'Failed',
        'Timed out',
        'Cancelled',
      ]);
      const completed = (await jobs.locator('tbody tr td:nth-of-type(1)').allTextContents()).map(Number);
      expect(completed.reduce((a, b) => a + b, 0)).toBe(JOBS);
      expect(completed).toHaveLength(60);
      await expect(jobs.locator('figcaption').textContent()).resolves.toMatch(
        /Completed peak [1-3] jobs\/min/,
      );
      // Latencies: p50 and p99 in ms (the echo worker answers in well under ten seconds).
      const execution = chart(metrics, 'Execution time');
      await expect(execution.locator('table caption').textContent()).resolves.toBe('Execution time, in ms');
      await expect(execution.locator('figcaption').textContent()).resolves.toMatch(
        /p50 peak \d+ ms, p99 peak \d+ ms/,
      );
      const cold = chart(metrics, 'Cold start p50, by phase');
      await expect(cold.locator('thead th').allTextContents()).resolves.toEqual([
        'Time',
        'Cold start p50',
        'Placement p50',
        'Runtime start p50',
        'Worker ready p50',
      ]);
      await expect(metrics.locator('.chart-canvas[aria-hidden="true"] canvas').count()).resolves.toBe(8);
      await browser.expectAccessible('endpoint metrics');
      await metrics.scrollIntoViewIfNeeded();
      await browser.snapshot('endpoint-metrics', { of: metrics });

      // The week: hour steps, counters per hour, the 168 steps summed up as 84 rows of two hours' peak.
      await metrics.getByRole('button', { name: /Window/ }).click();
      await browser.page.getByRole('option', { name: '7d' }).click();
      await until('the week read', async () =>
        /jobs\/h/.test((await jobs.locator('table caption').textContent()) ?? ''),
      );
      await expect(jobs.locator('table caption').textContent()).resolves.toBe(
        'Jobs finished, in jobs/h (each row the peak of 2 hours)',
      );
      await expect(jobs.locator('tbody tr').count()).resolves.toBe(84);

      // Every table shown: the page stays accessible.
      const toggles = metrics.getByRole('button', { name: 'Show as table' });
      for (let i = 0; i < (await toggles.count()); i += 1) await toggles.nth(i).click();
      await expect(metrics.locator('.chart-table').count()).resolves.toBe(8);
      await browser.expectAccessible('endpoint metrics as tables');
    });
  }, 90_000);

  it('draws the spend per hour on a time axis in USD, and names the resources in its rows', async () => {
    await browser.step('usage', async () => {
      // The worker's pod bills its endpoint: wait for its first record.
      await until(
        'serverless usage',
        async () => {
          const end = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
          const start = new Date(end.getTime() - 86_400_000);
          const list = await api<ServerlessBillingList>(
            'GET',
            `/v2/billing/serverless?startTime=${start.toISOString()}&endTime=${end.toISOString()}&bucketSize=hour`,
          );
          return list.records.some((r) => r.endpointId === endpointId && r.totalAmount > 0);
        },
        30_000,
      );
      await browser.page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Usage' })
        .click();
      await browser.page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
      const spend = browser.page.locator('figure.spend-chart');
      await until('the spend chart', async () =>
        /^Spend per hour: Total peak \$\d+\.\d+/.test(
          (await spend.locator('figcaption').textContent()) ?? '',
        ),
      );
      await spend.locator('.chart-canvas canvas').first().waitFor();
      await expect(spend.locator('table caption').textContent()).resolves.toBe('Spend per hour, in USD');
      await expect(tooltipOf(spend)).resolves.toMatch(/Total: \$\d+\.\d+/);

      await browser.page.getByLabel('Resources').selectOption('serverless');
      const rows = browser.page.getByRole('table', { name: 'Usage records' }).locator('tbody tr');
      await until('a row named after the endpoint', async () =>
        (await rows.allTextContents()).some((row) => row.includes(`chart-echo ${endpointId}`)),
      );
      await browser.expectAccessible('usage');
      await browser.snapshot('usage-chart', { fullPage: false });
      await spend.getByRole('button', { name: 'Show as table' }).click();
      await expect(spend.locator('.chart-table').isVisible()).resolves.toBe(true);
      await browser.expectAccessible('usage as a table');
    });
  }, 90_000);

  it('raised no CSP violation and no page error', () => {
    expect({ cspViolations: browser.cspViolations, pageErrors: browser.pageErrors }).toEqual({
      cspViolations: [],
      pageErrors: [],
    });
  });
});
