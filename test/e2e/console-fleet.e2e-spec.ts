import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { PodV2View } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, H100, api, writeFleet } from './clusters-fixtures.js';
import { openConsole, type ConsoleBrowser } from './console-browser.e2e-helpers.js';
import { CHROMIUM } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

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
  let browser: ConsoleBrowser;
  let base: string;
  let operatorKey: string;
  let alice: TestKey;
  let pod: PodV2View;

  const call = async <T>(key: string, method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };
  /** The cells of a table's row whose header is `id` (the header cell itself left out). */
  const cellsOf = async (table: string, id: string) => {
    const row = browser.page
      .getByRole('table', { name: table })
      .getByRole('row', { name: new RegExp(`^${id}\\b`) });
    await row.waitFor();
    return row.getByRole('cell').allTextContents();
  };
  /** Confirms the action in the dialog its button opens. */
  const confirm = async (action: string) => {
    await browser.page
      .getByRole('group', { name: 'Host actions' })
      .getByRole('button', { name: action })
      .click();
    const dialog = browser.page.getByRole('alertdialog');
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

    // Signed in as alice; the operator signs in, in a fresh tab, for the Fleet page.
    browser = await openConsole(base, alice.key, 'fleet');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('offers the Fleet page to operators only', async () => {
    await browser.step('not an operator', async () => {
      const nav = browser.page.getByRole('navigation', { name: 'Console' });
      await expect(nav.getByRole('link', { name: 'Fleet' }).count()).resolves.toBe(0);
    });
  }, 60_000);

  it('shows the capacity per data center and GPU type, and the hosts with their state and why', async () => {
    await browser.step('fleet', async () => {
      await browser.signIn(operatorKey);
      await browser.page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Fleet' })
        .click();
      await browser.page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor();
      // Data center, then GPU type, hosts, total, allocated, free, unavailable.
      await expect(cellsOf('GPU capacity', 'EU-RO-1')).resolves.toEqual([A100, '2', '6', '1', '3', '2']);
      await expect(cellsOf('GPU capacity', 'EU-CZ-1')).resolves.toEqual([H100, '1', '8', '0', '0', '8']);
      await expect(
        browser.page.getByText(/Hosts: 1 ready, 1 cordoned, 0 draining, 1 unhealthy, 0 gone/).count(),
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
      await browser.expectAccessible('fleet');
      await browser.snapshot('fleet');

      const hosts = browser.page.getByRole('table', { name: 'Hosts' }).locator('tbody tr');
      await browser.page.getByLabel('State', { exact: true }).selectOption('CORDONED');
      await until('one cordoned host', async () => (await hosts.count()) === 1);
      await expect(hosts.first().getByRole('rowheader').textContent()).resolves.toBe('cz-h100-1');
      await browser.page.getByLabel('State', { exact: true }).selectOption('');
      await browser.page.getByLabel('Data center', { exact: true }).selectOption('EU-RO-1');
      await until('two hosts in EU-RO-1', async () => (await hosts.count()) === 2);
      await browser.page.getByLabel('GPU type', { exact: true }).selectOption(H100);
      await browser.page.getByText('No hosts match.').waitFor();
    });
  }, 60_000);

  it('drains a host with a pod on it, refuses its removal inline, and calls the drain off', async () => {
    await browser.step('host', async () => {
      await browser.page.goto(`${base}/console/#/fleet/ro-a100-1`);
      await browser.page.getByRole('heading', { level: 2, name: 'Host ro-a100-1' }).waitFor();
      // Owner, cluster, GPUs, priority, since.
      await expect(cellsOf('Pods on the host', pod.id)).resolves.toEqual(expect.arrayContaining(['—', '1']));
      await browser.page.getByLabel('Reason').fill('rack move');
      await confirm('Drain');
      await browser.page.getByText('DRAINING', { exact: true }).waitFor();
      await browser.page.getByText('Drain deadline', { exact: true }).waitFor();
      await expect(browser.page.getByText(/by an operator: rack move/).count()).resolves.toBe(1);
      await browser.expectAccessible('host draining');
      await browser.snapshot('fleet-host');

      await confirm('Remove');
      await expect(browser.page.getByRole('alert').textContent()).resolves.toMatch(/\S/);
      await confirm('Uncordon');
      await browser.page.getByText('READY', { exact: true }).waitFor();
      await expect(browser.page.getByRole('alert').count()).resolves.toBe(0);
    });
  }, 60_000);

  it('drains and removes a host that holds nothing: it is GONE and takes no action', async () => {
    await browser.step('remove', async () => {
      await browser.page.goto(`${base}/console/#/fleet/cz-h100-1`);
      await browser.page.getByRole('heading', { level: 2, name: 'Host cz-h100-1' }).waitFor();
      await browser.page.getByText('No pod holds capacity on it.').waitFor();
      await confirm('Drain');
      await browser.page.getByText(/drained: it may be removed/).waitFor();
      await confirm('Remove');
      await browser.page.getByText('GONE', { exact: true }).waitFor();
      await browser.page.getByText(/A removed host takes no action/).waitFor();
      await browser.expectAccessible('host removed');
    });
  }, 60_000);

  it('raised no CSP violation and no page error', () => {
    expect({ cspViolations: browser.cspViolations, pageErrors: browser.pageErrors }).toEqual({
      cspViolations: [],
      pageErrors: [],
    });
  });
});
