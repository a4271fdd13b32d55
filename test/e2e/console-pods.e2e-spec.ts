import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import type { EndpointV2View, PodV2List, PodV2View, TemplateV2View } from '@app/contracts';
import { userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, H100, api, writeFleet } from './clusters-fixtures.js';
import { openConsole, type ConsoleBrowser } from './console-browser.e2e-helpers.js';
import { CHROMIUM } from './console-sso.e2e-helpers.js';
import { sleep, until } from './pods.e2e-helpers.js';

// One H100 alone on its host: a stopped pod's GPU taken by another, its start is refused (CAPACITY_UNAVAILABLE).
const FLEET = writeFleet([
  { id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 },
  { id: 'cz-h100-1', dataCenterId: 'EU-CZ-1', gpuTypeId: H100, gpuCount: 1 },
]);

/**
 * The pods list in Chromium against the five apps (simulated runtime): the user's own pods newest first with their
 * age, an endpoint's serverless worker and a cluster's members in tabs of their own, and row actions, the API's
 * refusal shown in its row. Each view checked by axe under the console's CSP.
 */
describe('console pods list, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let browser: ConsoleBrowser;
  let base: string;
  let user: TestKey;
  let endpoint: EndpointV2View;

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, user.key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };
  const podNamed = async (name: string) =>
    (await call<PodV2List>('GET', '/v2/pods')).pods.find((p) => p.name === name);
  const createPod = async (name: string, gpuTypeId: string): Promise<PodV2View> => {
    const pod = await call<PodV2View>('POST', '/v2/pods', {
      name,
      image: 'runpod/base:0.6.2',
      gpu: { id: gpuTypeId, count: 1 },
    });
    await until(`${name} running`, async () => (await podNamed(name))?.status === 'RUNNING');
    // createdAt has millisecond precision: the next pod is surely younger.
    await sleep(20);
    return pod;
  };
  /** The table of the selected tab, and the row of the pod named `pod` in it. */
  const table = (name: string) => browser.page.getByRole('table', { name, exact: true });
  const rowOf = (tableName: string, pod: string): Locator =>
    table(tableName)
      .locator('tbody tr')
      .filter({ has: browser.page.getByRole('rowheader', { name: pod, exact: true }) });
  const tab = (label: RegExp) => browser.page.getByRole('tab', { name: label });
  /** Waits for a row's status badge (the first badge: a reason's code may follow it) to say `status`. */
  const reaches = (pod: string, status: string) =>
    until(
      `${pod} ${status} in its row`,
      async () => (await rowOf('Your pods', pod).locator('td .badge').first().textContent()) === status,
      20_000,
    );

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    db = await createTestDatabase('console_pods');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'cluster-scheduler': { FLEET_FILE: FLEET },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
      },
    });
    base = system.url('gateway');
    user = await userWithKey(db.url, 'pia');
    // held runs, stops (its H100 freed) and taker takes that H100; newest is the last one made.
    const held = await createPod('held', H100);
    await call('POST', `/v2/pods/${held.id}/action`, { action: 'stop' });
    await until('held stopped', async () => (await podNamed('held'))?.status === 'EXITED');
    await createPod('taker', H100);
    await createPod('newest', A100);
    const worker = await call<TemplateV2View>('POST', '/v2/templates', {
      name: 'echo-worker',
      image: 'gpucp/echo-worker:latest',
      serverless: true,
    });
    endpoint = await call<EndpointV2View>('POST', '/v2/serverless', {
      name: 'always-on',
      type: 'QUEUE',
      templateId: worker.id,
      gpu: { pools: ['AMPERE_80'], count: 1 },
      workers: { min: 1, max: 1 },
    });
    await call('POST', '/v2/clusters', {
      name: 'duo',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
    });
    await until('the worker and both members listed', async () => {
      const { pods } = await call<PodV2List>('GET', '/v2/pods?includeClusterPods=true');
      return pods.filter((p) => p.cluster).length === 2 && pods.some((p) => p.endpointId === endpoint.id);
    });
    browser = await openConsole(base, user.key, 'pods');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('lists your own pods newest first with their age; workers and cluster members in their own tabs', async () => {
    await browser.step('pods list', async () => {
      await browser.page.goto(`${base}/console/#/pods`);
      await tab(/^Your pods \(3\)$/).waitFor();
      await expect(tab(/^Your pods/).getAttribute('aria-selected')).resolves.toBe('true');
      const own = table('Your pods');
      await expect(own.getByRole('rowheader').allTextContents()).resolves.toEqual([
        'newest',
        'taker',
        'held',
      ]);
      // The age: relative, the exact time as the tooltip and as text for screen readers only.
      const newest = await podNamed('newest');
      const age = rowOf('Your pods', 'newest').locator('time');
      await expect(age.getAttribute('datetime')).resolves.toBe(newest?.createdAt);
      await expect(age.getAttribute('title')).resolves.toBe(
        await browser.page.evaluate((iso) => new Date(iso).toLocaleString(), newest?.createdAt ?? ''),
      );
      await expect(age.textContent()).resolves.toMatch(/^(just now|\d+ \w+\.? ago) \(.+\)$/);
      await expect(age.locator('.sr-only').count()).resolves.toBe(1);
      await browser.expectAccessible('pods list');
      await browser.snapshot('pods-list');

      await tab(/^Serverless workers \(1\)$/).click();
      const workers = table('Serverless workers');
      await expect(workers.locator('tbody tr').count()).resolves.toBe(1);
      await expect(
        workers.getByRole('link', { name: `endpoint ${endpoint.id}` }).getAttribute('href'),
      ).resolves.toBe(`#/endpoints/${endpoint.id}`);
      await tab(/^Cluster members \(2\)$/).click();
      const members = table('Cluster members');
      await expect(members.getByRole('link', { name: /^cluster, rank \d$/ }).count()).resolves.toBe(2);
      // A member is never terminated alone: its row offers no Terminate.
      await expect(members.getByRole('button', { name: /^Terminate/ }).count()).resolves.toBe(0);
      await browser.expectAccessible('cluster members');
      await tab(/^All \(6\)$/).click();
      await expect(table('All').locator('tbody tr').count()).resolves.toBe(6);
      await tab(/^Your pods/).click();
    });
  }, 60_000);

  it("acts on a row: the API's refusal inline, then stop, start and terminate behind its confirmation", async () => {
    await browser.step('row actions', async () => {
      // held's H100 is taker's now: its start is refused, and the row says why.
      await rowOf('Your pods', 'held').getByRole('button', { name: 'Start held' }).click();
      const refusal = rowOf('Your pods', 'held').getByRole('alert');
      await refusal.waitFor();
      await expect(refusal.textContent()).resolves.toMatch(/\S/);
      await browser.expectAccessible('row refusal');
      await browser.snapshot('pods-row-error');

      await rowOf('Your pods', 'newest').getByRole('button', { name: 'Stop newest' }).click();
      await reaches('newest', 'EXITED');
      await rowOf('Your pods', 'newest').getByRole('button', { name: 'Start newest' }).click();
      await reaches('newest', 'RUNNING');

      await rowOf('Your pods', 'taker').getByRole('button', { name: 'Terminate taker' }).click();
      const dialog = browser.page.getByRole('alertdialog', { name: 'Terminate pod taker?' });
      await dialog.getByRole('button', { name: 'Terminate' }).click();
      await rowOf('Your pods', 'taker').waitFor({ state: 'detached', timeout: 20_000 });
      // Its H100 free again, held starts.
      await rowOf('Your pods', 'held').getByRole('button', { name: 'Start held' }).click();
      await reaches('held', 'RUNNING');
      await expect(rowOf('Your pods', 'held').getByRole('alert').count()).resolves.toBe(0);
      expect((await podNamed('taker')) ?? null).toBeNull();
    });
  }, 90_000);

  it('raised no CSP violation and no page error', () => {
    expect({ cspViolations: browser.cspViolations, pageErrors: browser.pageErrors }).toEqual({
      cspViolations: [],
      pageErrors: [],
    });
  });
});
