import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { EndpointV2View, PodV2View, TemplateView } from '@app/contracts';
import { userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';
import { openConsole, type ConsoleBrowser } from './console-browser.e2e-helpers.js';
import { CHROMIUM } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

/**
 * Reasons in the console, in Chromium against the five apps (simulated runtime): a stopped pod's reason on its page
 * and in the list, an endpoint that may have no worker says so beside its queue, and a test job it holds says why
 * it waits; each page checked by axe under the console's CSP.
 */
describe('console wait reasons, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let browser: ConsoleBrowser;
  let base: string;
  let user: TestKey;
  let pod: PodV2View;
  let endpoint: EndpointV2View;

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, user.key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    db = await createTestDatabase('console_reasons');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
      },
    });
    base = system.url('gateway');
    user = await userWithKey(db.url, 'rita');
    pod = await call<PodV2View>('POST', '/v2/pods', {
      name: 'paused',
      image: 'runpod/base:0.6.2',
      gpu: { id: 'NVIDIA RTX A4000', count: 1 },
    });
    await until(
      'the pod to run',
      async () => (await call<PodV2View>('GET', `/v2/pods/${pod.id}`)).status === 'RUNNING',
    );
    await call('POST', `/v2/pods/${pod.id}/action`, { action: 'stop' });
    const template = await call<TemplateView>('POST', '/v1/templates', {
      name: 'echo-worker',
      imageName: 'gpucp/echo-worker:latest',
      isServerless: true,
    });
    endpoint = await call<EndpointV2View>('POST', '/v2/serverless', {
      name: 'parked',
      type: 'QUEUE',
      templateId: template.id,
      gpu: { pools: ['AMPERE_16'], count: 1 },
      workers: { min: 0, max: 0 },
    });
    browser = await openConsole(base, user.key, 'reasons');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it("shows a stopped pod's reason: the code, the sentence and since when", async () => {
    await browser.step('pod reason', async () => {
      await browser.page.goto(`${base}/console/#/pods/${pod.id}`);
      const reason = browser.page.locator('.wait-reason[data-code="EXITED"]');
      await reason.waitFor();
      await expect(reason.textContent()).resolves.toMatch(/^EXITED stopped by the user since /);
      await expect(reason.locator('time').getAttribute('datetime')).resolves.toMatch(/^\d{4}-\d{2}-\d{2}T/);
      await browser.expectAccessible('pod detail');
      // The list: the code beside the status, its sentence as the tooltip.
      await browser.page.goto(`${base}/console/#/pods`);
      const badge = browser.page.getByRole('row', { name: /paused/ }).locator('.badge-reason');
      await expect(badge.textContent()).resolves.toBe('EXITED');
      await expect(badge.getAttribute('title')).resolves.toBe('stopped by the user');
      await browser.expectAccessible('pod list');
    });
  }, 60_000);

  it('shows why an endpoint and its test job wait', async () => {
    await browser.step('endpoint reason', async () => {
      await browser.page.goto(`${base}/console/#/endpoints/${endpoint.id}`);
      const waiting = browser.page.locator('.facts .wait-reason[data-code="NO_WORKERS_ALLOWED"]');
      await waiting.waitFor({ timeout: 20_000 });
      await expect(waiting.textContent()).resolves.toMatch(/workersMax is 0/);
      await browser.page.getByRole('button', { name: 'Run job' }).click();
      const job = browser.page
        .getByRole('table', { name: 'Jobs' })
        .locator('.wait-reason[data-code="NO_WORKERS_ALLOWED"]');
      await job.waitFor({ timeout: 20_000 });
      await browser.expectAccessible('endpoint with a waiting job');
    });
  }, 60_000);

  it('raised no CSP violation and no page error', () => {
    expect({ cspViolations: browser.cspViolations, pageErrors: browser.pageErrors }).toEqual({
      cspViolations: [],
      pageErrors: [],
    });
  });
});
