import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { PodV2View } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { ROOT } from '../support/paths.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, H100, api, writeFleet } from './clusters-fixtures.js';
import { CHROMIUM, CHROMIUM_ARGS } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

const FAILURES = join(ROOT, 'test-results', 'console');
/** `CONSOLE_SCREENSHOTS=docs/console` (scripts/console-screenshots.mjs): the pages' pictures go there too. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? join(ROOT, process.env.CONSOLE_SCREENSHOTS) : null;
const FLEET = writeFleet([
  { id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 4 },
  { id: 'ro-a100-2', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 2 },
  { id: 'cz-h100-1', dataCenterId: 'EU-CZ-1', gpuTypeId: H100, gpuCount: 8 },
]);

/**
 * The console's Fleet page in Chromium against the gateway, the cluster scheduler and pod-lifecycle (simulated):
 * capacity per data center and GPU type, the hosts filtered with their state and its reason, a host with its pods
 * drained, refused removal while a pod holds it, and a removed one; each view checked by axe under the CSP.
 */
describe('console fleet page, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let operatorKey: string;
  let alice: TestKey;
  let pod: PodV2View;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  async function step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      mkdirSync(FAILURES, { recursive: true });
      const file = join(FAILURES, `fleet-${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
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

  /** A fresh tab (its own session storage) signed in with the key. */
  async function signIn(key: string): Promise<void> {
    await page?.close();
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
    await page.goto(`${base}/console/`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }

  const call = async <T>(key: string, method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };
  /** The cells of a table's row whose header is `id` (the header cell itself left out). */
  const cellsOf = async (table: string, id: string) => {
    const row = page.getByRole('table', { name: table }).getByRole('row', { name: new RegExp(`^${id}\\b`) });
    await row.waitFor();
    return row.getByRole('cell').allTextContents();
  };
  /** Confirms the action in the dialog its button opens. */
  const confirm = async (action: string) => {
    await page.getByRole('group', { name: 'Host actions' }).getByRole('button', { name: action }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: action }).click();
    await dialog.waitFor({ state: 'detached' });
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    db = await createTestDatabase('console_fleet');
    system = await startApps({
      databaseUrl: db.url,
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'cluster-scheduler': { FLEET_FILE: FLEET },
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    base = system.url('gateway');
    alice = await userWithKey(db.url, 'alice');
    await keysCli(db.url, ['user', 'create', 'ops']);
    operatorKey = (
      JSON.parse(await keysCli(db.url, ['key', 'create', 'ops', '--scope', 'operator', '--json'])) as TestKey
    ).key;
    // ro-a100-2 is cordoned while alice's pod is placed (on ro-a100-1, then), then reported unhealthy; cz-h100-1
    // is cordoned for a firmware update.
    await call(operatorKey, 'POST', '/v2/fleet/hosts/ro-a100-2/cordon', {});
    pod = await call<PodV2View>(alice.key, 'POST', '/v2/pods', {
      name: 'train',
      image: 'runpod/base:0.6.2',
      gpu: { id: A100, count: 1 },
    });
    await until('the pod placed', async () => {
      const view = await call<PodV2View>(alice.key, 'GET', `/v2/pods/${pod.id}`);
      return view.machineId === 'ro-a100-1';
    });
    await call(operatorKey, 'POST', '/v2/fleet/hosts/ro-a100-2/uncordon');
    await call(operatorKey, 'POST', '/v2/fleet/hosts/ro-a100-2/health', {
      healthy: false,
      reason: 'fans failing',
    });
    await call(operatorKey, 'POST', '/v2/fleet/hosts/cz-h100-1/cordon', { reason: 'firmware update' });

    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'console-fleet-')), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 900 },
      colorScheme: 'light',
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('offers the Fleet page to operators only', async () => {
    await step('not an operator', async () => {
      await signIn(alice.key);
      const nav = page.getByRole('navigation', { name: 'Console' });
      await expect(nav.getByRole('link', { name: 'Fleet' }).count()).resolves.toBe(0);
    });
  }, 60_000);

  it('shows the capacity per data center and GPU type, and the hosts with their state and why', async () => {
    await step('fleet', async () => {
      await signIn(operatorKey);
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Fleet' }).click();
      await page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor();
      // Data center, then GPU type, hosts, total, allocated, free, unavailable.
      await expect(cellsOf('GPU capacity', 'EU-RO-1')).resolves.toEqual([A100, '2', '6', '1', '3', '2']);
      await expect(cellsOf('GPU capacity', 'EU-CZ-1')).resolves.toEqual([H100, '1', '8', '0', '0', '8']);
      await expect(
        page.getByText(/Hosts: 1 ready, 1 cordoned, 0 draining, 1 unhealthy, 0 gone/).count(),
      ).resolves.toBe(1);

      await expect(cellsOf('Hosts', 'cz-h100-1')).resolves.toEqual([
        'EU-CZ-1',
        `0 / 8 × ${H100}`,
        '0',
        'CORDONED by an operator: firmware update',
        'file',
      ]);
      await expect(cellsOf('Hosts', 'ro-a100-2')).resolves.toContain('UNHEALTHY OPERATOR: fans failing');
      await expect(cellsOf('Hosts', 'ro-a100-1')).resolves.toContain('READY');
      await expectAccessible('fleet');
      await snapshot('fleet');

      const hosts = page.getByRole('table', { name: 'Hosts' }).locator('tbody tr');
      await page.getByLabel('State', { exact: true }).selectOption('CORDONED');
      await until('one cordoned host', async () => (await hosts.count()) === 1);
      await expect(hosts.first().getByRole('rowheader').textContent()).resolves.toBe('cz-h100-1');
      await page.getByLabel('State', { exact: true }).selectOption('');
      await page.getByLabel('Data center', { exact: true }).selectOption('EU-RO-1');
      await until('two hosts in EU-RO-1', async () => (await hosts.count()) === 2);
      await page.getByLabel('GPU type', { exact: true }).selectOption(H100);
      await page.getByText('No hosts match.').waitFor();
    });
  }, 60_000);

  it('drains a host with a pod on it, refuses its removal inline, and calls the drain off', async () => {
    await step('host', async () => {
      await page.goto(`${base}/console/#/fleet/ro-a100-1`);
      await page.getByRole('heading', { level: 2, name: 'Host ro-a100-1' }).waitFor();
      // Owner, cluster, GPUs, priority, since.
      await expect(cellsOf('Pods on the host', pod.id)).resolves.toEqual(expect.arrayContaining(['—', '1']));
      await page.getByLabel('Reason').fill('rack move');
      await confirm('Drain');
      await page.getByText('DRAINING', { exact: true }).waitFor();
      await page.getByText('Drain deadline', { exact: true }).waitFor();
      await expect(page.getByText(/by an operator: rack move/).count()).resolves.toBe(1);
      await expectAccessible('host draining');
      await snapshot('fleet-host');

      await confirm('Remove');
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/\S/);
      await confirm('Uncordon');
      await page.getByText('READY', { exact: true }).waitFor();
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
    });
  }, 60_000);

  it('drains and removes a host that holds nothing: it is GONE and takes no action', async () => {
    await step('remove', async () => {
      await page.goto(`${base}/console/#/fleet/cz-h100-1`);
      await page.getByRole('heading', { level: 2, name: 'Host cz-h100-1' }).waitFor();
      await page.getByText('No pod holds capacity on it.').waitFor();
      await confirm('Drain');
      await page.getByText(/drained: it may be removed/).waitFor();
      await confirm('Remove');
      await page.getByText('GONE', { exact: true }).waitFor();
      await page.getByText(/A removed host takes no action/).waitFor();
      await expectAccessible('host removed');
    });
  }, 60_000);

  it('raised no CSP violation and no page error', () => {
    expect({ cspViolations, pageErrors }).toEqual({ cspViolations: [], pageErrors: [] });
  });
});
