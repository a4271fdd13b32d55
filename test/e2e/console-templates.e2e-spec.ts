import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { PodV2List, TemplateList, TemplateV2View } from '@app/contracts';
import { userWithKey, type TestKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { A100, api, writeFleet } from './clusters-fixtures.js';
import { openConsole, type ConsoleBrowser } from './console-browser.e2e-helpers.js';
import { CHROMIUM } from './console-sso.e2e-helpers.js';
import { until } from './pods.e2e-helpers.js';

const FLEET = writeFleet([{ id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 }]);

/**
 * The templates pages in Chromium against the gateway, the cluster scheduler and pod-lifecycle (simulated, with
 * its default catalog file): the new template form's disk default is the API's, a template edited in its dialog
 * (the API's refusal of a taken name kept inside it), and the public catalog by source with a pod
 * deployed from one of its templates. Each view checked by axe under the console's CSP.
 */
describe('console templates and catalog, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let browser: ConsoleBrowser;
  let base: string;
  let user: TestKey;

  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, user.key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };
  const podNamed = async (name: string) =>
    (await call<PodV2List>('GET', '/v2/pods')).pods.find((p) => p.name === name);
  const table = (name: string) => browser.page.getByRole('table', { name, exact: true });
  const tab = (label: RegExp) => browser.page.getByRole('tab', { name: label });

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    db = await createTestDatabase('console_templates');
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
    user = await userWithKey(db.url, 'tess');
    // Made by the API without a disk: it takes the API's default.
    await call('POST', '/v2/templates', {
      name: 'notebook',
      image: 'jupyter/base-notebook:latest',
      ports: ['8888/http'],
      env: { API_TOKEN: 'kept-secret', MODE: 'lab' },
    });
    await call('POST', '/v2/templates', { name: 'scratch', image: 'runpod/base:0.6.2' });
    browser = await openConsole(base, user.key, 'templates');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it("offers the API's disk default and edits a template in its dialog, the API's refusal kept inside", async () => {
    await browser.step('template edit', async () => {
      await browser.page.goto(`${base}/console/#/templates`);
      const mine = table('Your templates');
      await mine.getByRole('rowheader', { name: 'notebook' }).waitFor();
      // notebook was made by the API without a disk: the form's default is the same.
      const notebook = (await call<TemplateList>('GET', '/v2/templates')).templates.find(
        (t) => t.name === 'notebook',
      );
      await expect(browser.page.getByLabel('Container disk (GB)').inputValue()).resolves.toBe(
        String(notebook?.disk),
      );

      await browser.page.getByRole('button', { name: 'Edit template notebook' }).click();
      const dialog = browser.page.getByRole('dialog', { name: 'Edit template notebook' });
      await expect(dialog.getByLabel('Image', { exact: true }).inputValue()).resolves.toBe(
        'jupyter/base-notebook:latest',
      );
      await dialog.getByLabel('Name', { exact: true }).fill('scratch');
      await dialog.getByRole('button', { name: 'Save template' }).click();
      await expect(dialog.getByRole('alert').textContent()).resolves.toMatch(/named scratch/);
      await browser.expectAccessible('template edit refused');
      await browser.snapshot('template-edit');

      await dialog.getByLabel('Name', { exact: true }).fill('notebook-lab');
      await dialog.getByLabel('Image', { exact: true }).fill('jupyter/scipy-notebook:latest');
      await dialog.getByLabel('Container disk (GB)').fill('40');
      await dialog.getByRole('button', { name: 'Save template' }).click();
      await dialog.waitFor({ state: 'detached' });
      const row = mine
        .locator('tbody tr')
        .filter({ has: browser.page.getByRole('rowheader', { name: 'notebook-lab' }) });
      await expect(row.getByRole('cell').allTextContents()).resolves.toEqual(
        expect.arrayContaining(['jupyter/scipy-notebook:latest', 'pod', '40', '8888/http']),
      );
      const saved = await call<TemplateV2View>('GET', `/v2/templates/${notebook?.id}`);
      expect(saved).toMatchObject({ name: 'notebook-lab', image: 'jupyter/scipy-notebook:latest', disk: 40 });
      expect(saved.env).toEqual({ API_TOKEN: '********', MODE: 'lab' });
    });
  }, 60_000);

  it('shows the public catalog by source and deploys a pod from one of its templates', async () => {
    await browser.step('catalog', async () => {
      await tab(/^Catalog$/).click();
      await browser.page.waitForURL(/#\/templates\/catalog$/);
      const catalog = table('Catalog templates');
      await catalog.getByRole('rowheader', { name: 'RunPod Pytorch 2.1' }).waitFor();
      await expect(catalog.getByRole('rowheader').allTextContents()).resolves.toEqual(
        expect.arrayContaining(['Runpod Ubuntu', 'RunPod Pytorch 2.1', 'vLLM worker (serverless)']),
      );
      // A serverless template deploys no pod.
      await expect(
        browser.page.getByRole('link', { name: 'Deploy a pod from vLLM worker (serverless)' }).count(),
      ).resolves.toBe(0);
      await browser.expectAccessible('catalog');
      await browser.snapshot('templates-catalog');
      await browser.page.getByRole('button', { name: /Source/ }).click();
      await browser.page.getByRole('option', { name: 'Verified' }).click();
      await browser.page.getByText('No verified templates.').waitFor();
      await browser.page.getByRole('button', { name: /Source/ }).click();
      await browser.page.getByRole('option', { name: 'Official' }).click();

      await browser.page.getByRole('link', { name: 'Deploy a pod from RunPod Pytorch 2.1' }).click();
      await browser.page.waitForURL(/#\/pods\/new\/runpod-torch-v21$/);
      const template = browser.page.getByLabel('Template', { exact: true });
      await until('the template chosen', async () => (await template.inputValue()) === 'runpod-torch-v21');
      await browser.page.getByLabel('Name', { exact: true }).fill('from-catalog');
      await browser.page.getByLabel('GPU type').selectOption(A100);
      await browser.expectAccessible('pod from the catalog');
      await browser.page.getByRole('button', { name: 'Create pod' }).click();
      await browser.page.getByRole('heading', { level: 2, name: 'from-catalog' }).waitFor();
      const pod = await podNamed('from-catalog');
      expect(pod).toMatchObject({ templateId: 'runpod-torch-v21', disk: 20 });
    });
  }, 60_000);

  it('raised no CSP violation and no page error', () => {
    expect({ cspViolations: browser.cspViolations, pageErrors: browser.pageErrors }).toEqual({
      cspViolations: [],
      pageErrors: [],
    });
  });
});
