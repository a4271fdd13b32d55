import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { Subjects, type CreatedApiKey, type TeamView } from '@app/contracts';
import { keysCli, userWithKey, type TestKey } from '../support/accounts.js';
import { closeBus, commandEnvelope, sendCommand } from '../support/bus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { api } from './clusters-fixtures.js';
import { openConsole, type ConsoleBrowser } from './console-browser.e2e-helpers.js';
import { CHROMIUM } from './console-sso.e2e-helpers.js';

const A4000 = 'NVIDIA RTX A4000';

/**
 * The console's quota pages in Chromium against the gateway, the cluster scheduler and pod-lifecycle: a team that
 * borrows from its cohort, its Quota page (limits, use, a chart of the history with its tooltip and its table), and
 * the operators' All quotas page, each checked by axe under the console's CSP.
 */
describe('console quota pages, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let browser: ConsoleBrowser;
  let base: string;
  let operatorKey: string;
  let member: TestKey;
  let vision: TeamView;

  const call = async <T>(key: string, method: string, path: string, body?: unknown): Promise<T> => {
    const reply = await api<T>(base, key, method, path, body);
    if (reply.status >= 300) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  };
  /** The scheduler's minute sample, dated `at`, as its leader's tick issues it. */
  const sample = async (at: Date) => {
    const outcome = await sendCommand(
      system.natsPrefix,
      commandEnvelope(
        Subjects.quota.sample,
        {},
        {
          issuedAt: at.toISOString(),
          actor: { userId: 'cluster-scheduler', kind: 'system', reason: 'test tick' },
        },
      ),
    );
    expect(outcome).toMatchObject({ ok: true });
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    db = await createTestDatabase('console_quotas');
    system = await startApps({
      databaseUrl: db.url,
      apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      },
    });
    base = system.url('gateway');
    member = await userWithKey(db.url, 'vera');
    const lender = await userWithKey(db.url, 'lars');
    await keysCli(db.url, ['user', 'create', 'ops']);
    operatorKey = (
      JSON.parse(await keysCli(db.url, ['key', 'create', 'ops', '--scope', 'operator', '--json'])) as TestKey
    ).key;
    vision = await call<TeamView>(member.key, 'POST', '/v2/teams', { name: 'vision' });
    const speech = await call<TeamView>(lender.key, 'POST', '/v2/teams', { name: 'speech' });
    await call(lender.key, 'POST', '/v2/teams', { name: 'robotics' });
    // vision may hold 1 A4000 and borrow 2 more; speech, of the same cohort, leaves its 2 idle.
    const limit = (gpus: number, borrowingLimit: number) => [{ gpuTypeId: A4000, gpus, borrowingLimit }];
    await call(operatorKey, 'PUT', `/v2/teams/${vision.id}/quota`, { cohort: 'ml', limits: limit(1, 2) });
    await call(operatorKey, 'PUT', `/v2/teams/${speech.id}/quota`, { cohort: 'ml', limits: limit(2, 0) });
    await call(operatorKey, 'PUT', '/v2/quotas/default', { limits: [{ gpuTypeId: A4000, gpus: 1 }] });
    const teamKey = (
      await call<CreatedApiKey>(member.key, 'POST', '/v2/account/api-keys', {
        name: 'vera for vision',
        scope: 'full',
        teamId: vision.id,
      })
    ).key;
    // Five minutes of history: idle, one pod (within the share), then two (one GPU borrowed from speech).
    const now = Date.now();
    const minutesAgo = (n: number) => new Date(Math.floor(now / 60_000) * 60_000 - n * 60_000);
    await sample(minutesAgo(5));
    await sample(minutesAgo(4));
    const pod = (name: string) => ({ name, image: 'runpod/base:0.6.2', gpu: { id: A4000, count: 1 } });
    await call(teamKey, 'POST', '/v2/pods', pod('train-1'));
    await sample(minutesAgo(3));
    await sample(minutesAgo(2));
    await call(teamKey, 'POST', '/v2/pods', pod('train-2'));
    await sample(minutesAgo(1));
    await sample(minutesAgo(0));

    // Signed in as the member; the operator signs in, in a fresh tab, for the All quotas page.
    browser = await openConsole(base, member.key, 'quota');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await closeBus();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it("shows a member the team's quota, its use and borrowing, and a chart of its history", async () => {
    await browser.step('team quota', async () => {
      // Not an operator: no All quotas page.
      const nav = browser.page.getByRole('navigation', { name: 'Console' });
      await expect(nav.getByRole('link', { name: 'All quotas' }).count()).resolves.toBe(0);
      await nav.getByRole('link', { name: 'Quota', exact: true }).click();
      await browser.page.getByLabel('Account', { exact: true }).selectOption({ label: 'Team vision' });
      await browser.page.getByRole('heading', { level: 2, name: 'Quota of vision' }).waitFor();
      const limits = browser.page.getByRole('table', { name: 'Limits' });
      const row = limits.getByRole('row', { name: new RegExp(A4000) });
      await row.waitFor();
      await expect(row.getByRole('cell').allTextContents()).resolves.toEqual([
        'every one',
        '1',
        '2',
        '2 over its share',
        '1',
        '0',
      ]);
      await expect(browser.page.getByText('ml', { exact: true }).count()).resolves.toBe(1);

      // The chart: drawn on a canvas, hidden from screen readers, its data a table for them.
      const figure = browser.page.locator('figure.quota-chart');
      await expect(figure.locator('figcaption').textContent()).resolves.toMatch(
        /peak 2 GPUs in use, 1 GPU borrowed, 0 GPUs lent/,
      );
      await figure.locator('canvas').first().waitFor();
      await expect(figure.locator('.chart-canvas').getAttribute('aria-hidden')).resolves.toBe('true');
      const table = figure.getByRole('table');
      await expect(table.locator('tbody tr').count()).resolves.toBeGreaterThanOrEqual(6);
      await expect(table.locator('thead th').allTextContents()).resolves.toEqual([
        'Time',
        'Quota',
        'In use',
        'Borrowed',
        'Lent',
      ]);
      // The tooltip follows the pointer: the time and each line's value, in GPUs.
      const over = figure.locator('.u-over');
      const box = (await over.boundingBox())!;
      await browser.page.mouse.move(box.x + box.width - 4, box.y + box.height / 2);
      const tooltip = figure.locator('.chart-tooltip');
      await tooltip.waitFor({ state: 'visible' });
      await expect(tooltip.textContent()).resolves.toMatch(/In use: 2 GPUs.*Borrowed: 1 GPU(?!s)/);
      await browser.expectAccessible('team quota');
      await browser.snapshot('quota');
      await browser.page.getByRole('button', { name: 'Show as table' }).click();
      await expect(figure.locator('.chart-table').isVisible()).resolves.toBe(true);
      await browser.expectAccessible('team quota as a table');
      // The member's own account and their one team to choose from (speech and robotics are others').
      await expect(
        browser.page.getByLabel('Account', { exact: true }).locator('option').allTextContents(),
      ).resolves.toEqual(['Your own account', 'Team vision']);
    });
  }, 60_000);

  it('shows operators every team with its quota and use, and the default', async () => {
    await browser.step('all quotas', async () => {
      await browser.signIn(operatorKey);
      await browser.page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'All quotas' })
        .click();
      await browser.page.getByRole('heading', { level: 1, name: 'All quotas' }).waitFor();
      // Each table fills as its queries answer (a team under the default is read on its own): wait for the row.
      await browser.page
        .getByRole('table', { name: 'Default limits' })
        .getByRole('row', { name: new RegExp(A4000) })
        .waitFor();
      const teams = browser.page.getByRole('table', { name: 'Quotas of every team' });
      const rowOf = async (team: string) => {
        const row = teams.getByRole('row', { name: new RegExp(`^${team}\\b`) });
        await row.waitFor();
        return (await row.getByRole('cell').allTextContents()).slice(0, 7).join(' | ');
      };
      await expect(rowOf('robotics')).resolves.toBe(`default | — | ${A4000} | every one | 1 | 0 | 0`);
      await expect(rowOf('speech')).resolves.toBe(`own | ml | ${A4000} | every one | 2 | 0 | 0`);
      await expect(rowOf('vision')).resolves.toBe(`own | ml | ${A4000} | every one | 1 | 2 | 1`);
      await browser.expectAccessible('all quotas');
      await browser.snapshot('quotas');
      // A team's name opens its Quota page.
      await teams.getByRole('link', { name: 'vision' }).click();
      await browser.page.getByRole('heading', { level: 2, name: 'Quota of vision' }).waitFor();
    });
  }, 60_000);

  it('raised no CSP violation and no page error', () => {
    expect({ cspViolations: browser.cspViolations, pageErrors: browser.pageErrors }).toEqual({
      cspViolations: [],
      pageErrors: [],
    });
  });
});
