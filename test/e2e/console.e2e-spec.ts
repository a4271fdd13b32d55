import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { ApiKeyList, GpuTypeView } from '@app/contracts';
import { createKey, userWithKey } from '../support/accounts.js';
import { echoWorkerCatalog } from '../support/echo-worker.js';
import { ROOT } from '../support/paths.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/** Where a failing step leaves its screenshot (gitignored). */
const FAILURES = join(ROOT, 'test-results', 'console');
/** `CONSOLE_SCREENSHOTS=docs/console`: also save a screenshot of each page there (scripts/console-screenshots.mjs). */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? join(ROOT, process.env.CONSOLE_SCREENSHOTS) : null;
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/**
 * Flags for a closed network: without them Chromium keeps calling Google's hosts (updates, sync, field trials)
 * and the refused connections slow everything down.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
/** Buttons that change something: none of them may be offered to a read-only key. */
const WRITE_BUTTONS =
  /^(Create|Delete|Remove|Revoke|Save|Add|Run job|Start|Stop|Restart|Terminate)|(template|endpoint|pod|cluster|credential|volume|workers)$/;

/**
 * The web console in a real browser (Debian's Chromium, headless, driven by playwright-core) against all five
 * apps: the local runtime runs the echo worker and a ticking pod as real processes. The steps share one signed-in
 * page and build on each other, as a person would use the console.
 */
describe('web console, in Chromium', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let context: BrowserContext;
  let page: Page;
  let fullKey: string;
  let readKey: string;
  let base: string;
  let podGpu: GpuTypeView;
  let clusterGpu: GpuTypeView;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  /** Runs a step; on failure leaves a screenshot of the page in test-results/console/. */
  async function step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      mkdirSync(FAILURES, { recursive: true });
      const file = join(FAILURES, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
      await page?.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      (error as Error).message += `\n(screenshot: ${file})`;
      throw error;
    }
  }

  async function snapshot(name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
  }

  /** axe-core over the page as it is: no serious or critical violation (WCAG 2.1 A and AA rules). */
  async function expectAccessible(where: string): Promise<void> {
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    const serious = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${where}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(serious).toEqual([]);
  }

  /** Polls `probe` until `accept` holds of its value (then returns it), or fails naming the last value. */
  async function until<T>(
    probe: () => Promise<T>,
    accept: (value: T) => boolean,
    timeoutMs = 30_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (accept(value)) return value;
      if (Date.now() > deadline) {
        throw new Error(`gave up after ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  const nav = (label: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label });

  async function go(label: string): Promise<void> {
    await nav(label).click();
    // The page renders after the hash changes: wait for its heading rather than read the old one.
    await page.getByRole('heading', { level: 1, name: label, exact: true }).waitFor();
  }

  async function signIn(key: string): Promise<void> {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }

  async function api<T>(path: string): Promise<T> {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${fullKey}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is missing at ${CHROMIUM}: run the tests with npm test (it installs it) or set CHROMIUM_PATH`,
      );
    }
    const dir = mkdtempSync(join(tmpdir(), 'console-e2e-'));
    const catalog = echoWorkerCatalog(dir);
    const images = JSON.parse(readFileSync(catalog, 'utf8')) as { images: Record<string, unknown> };
    images.images['test/ticker'] = {
      command: ['/bin/sh', '-c', 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.3; done'],
    };
    writeFileSync(catalog, JSON.stringify(images));
    db = await createTestDatabase('console');
    system = await startApps({
      databaseUrl: db.url,
      env: { RATE_LIMITS_ENABLED: 'false' },
      appEnv: {
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: catalog,
          LOCAL_PODS_DIR: join(dir, 'pods'),
          LOCAL_READY_MS: '100',
          SIM_PROVISION_MS: '100',
          SIM_START_MS: '100',
        },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '300' },
        'queue-broker': { METRICS_SAMPLE_MS: '1000' },
      },
    });
    base = system.url('gateway');
    // The workers the autoscaler starts call the gateway back at its real address.
    await system.restart('endpoint-autoscaler', {
      QUEUE_PUBLIC_URL: new URL(base).origin,
      WORKER_PING_INTERVAL_MS: '1000',
    });
    fullKey = (await userWithKey(db.url, 'console-user')).key;
    readKey = (await createKey(db.url, 'console-user', 'read')).key;
    const gpus = (await api<GpuTypeView[]>('/v2/catalog/gpus')).filter((g) => g.availability.freeGpus > 0);
    podGpu = gpus[0];
    clusterGpu = [...gpus].sort((a, b) => b.availability.freeGpus - a.availability.freeGpus)[0];
    // A fresh profile of its own (persistent context: Playwright's way to pass --user-data-dir).
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'console-chromium-')), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 900 },
      colorScheme: 'light',
      acceptDownloads: true,
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('is served at /console under a strict CSP, and asks for a key', async () => {
    const response = await fetch(`${base}/console/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    // No inline script: every <script> has a src.
    expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    // No identity provider configured: API keys only; the SSO routes say so in a problem.
    expect(await (await fetch(`${base}/console/sso/config`)).json()).toEqual({
      enabled: false,
      providerName: '',
    });
    const sso = await fetch(`${base}/console/sso/login`, { redirect: 'manual' });
    expect(sso.status).toBe(404);
    expect(sso.headers.get('content-type')).toContain('application/problem+json');
    expect(((await sso.json()) as { detail: string }).detail).toMatch(/single sign-on is not configured/);
    await step('sign-in page', async () => {
      await page.goto(`${base}/console/`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await snapshot('sign-in');
      await expectAccessible('sign-in');
      // A wrong key: the API's problem+json detail, on the page.
      await page.getByLabel('API key').fill('cpk_not-a-key');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/key/i);
    });
  });

  it("GET /v2/account/api-keys: the caller's key and scope, the user's keys without secrets", async () => {
    const list = async (key: string) => {
      const response = await fetch(`${base}/v2/account/api-keys`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: response.status, body: (await response.json()) as ApiKeyList };
    };
    const asReader = await list(readKey);
    expect(asReader.status).toBe(200);
    expect(asReader.body.current).toMatchObject({ scope: 'read', revokedAt: null, endpointIds: [] });
    expect(asReader.body.apiKeys.map((k) => k.scope).sort()).toEqual(['full', 'read']);
    expect(JSON.stringify(asReader.body)).not.toContain(readKey);
    expect(JSON.stringify(asReader.body)).not.toContain(fullKey);
    expect((await list(fullKey)).body.current.scope).toBe('full');
    const endpointsKey = (await createKey(db.url, 'console-user', 'endpoints', ['ep-x'])).key;
    expect((await list(endpointsKey)).status).toBe(403);
  });

  it('signs in with a full key; the key stays out of the URL, in session storage', async () => {
    await step('sign in', async () => {
      await signIn(fullKey);
      expect(page.url()).not.toContain(fullKey);
      expect(await page.evaluate("sessionStorage.getItem('gpucp.console.key')")).toBe(fullKey);
      await expect(page.getByText('full access').count()).resolves.toBe(1);
      await expectAccessible('overview');
    });
  });

  it('creates a serverless template', async () => {
    await step('template', async () => {
      await go('Templates');
      await page.getByLabel('Name', { exact: true }).fill('echo');
      await page.getByLabel('Image', { exact: true }).fill('test/echo-worker');
      await page.getByLabel('Serverless (for endpoints)').check();
      await page.getByRole('button', { name: 'Create template' }).click();
      await page.getByRole('cell', { name: 'test/echo-worker' }).waitFor();
      await snapshot('templates');
    });
  });

  it('creates an endpoint, runs a job to COMPLETED with its output, and watches its worker appear and go idle', async () => {
    await step('endpoint', async () => {
      await go('Serverless');
      await page.getByLabel('Name', { exact: true }).fill('console-echo');
      await page.getByLabel('Template').selectOption({ label: 'echo (test/echo-worker)' });
      await page.getByLabel('Workers max').fill('1');
      await page.getByLabel('Idle timeout (s)').fill('60');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByRole('heading', { level: 2, name: 'console-echo' }).waitFor();
      await page.getByText('No workers').waitFor();
      await page.getByLabel('Input (JSON)').fill('{"hello": "console"}');
      await page.getByRole('button', { name: 'Run job' }).click();
      const jobs = page.getByRole('table', { name: 'Jobs', exact: true });
      await jobs.getByText('COMPLETED').waitFor({ timeout: 60_000 });
      await expect(jobs.locator('code.output').textContent()).resolves.toContain('"hello":"console"');
      const workers = page.getByRole('table', { name: 'Workers', exact: true });
      await workers.getByText('IDLE').waitFor({ timeout: 30_000 });
      await expect(workers.locator('tbody tr').count()).resolves.toBe(1);
      // The worker's cold start, phase by phase (choosing a window reads the metrics again).
      await page.getByRole('button', { name: /Window/ }).click();
      await page.getByRole('option', { name: '5m' }).click();
      const phases = page.getByRole('table', { name: 'Cold start phases' });
      const starts = (phase: RegExp) =>
        phases.getByRole('row', { name: phase }).locator('td').first().textContent();
      await until(
        () => starts(/^Worker ready/),
        (count) => count === '1',
      );
      await expect(starts(/^Placement/)).resolves.toBe('1');
      await expect(starts(/^Runtime start/)).resolves.toBe('1');
      await expectAccessible('endpoint');
      await snapshot('endpoint');
      await go('Serverless');
      await snapshot('endpoints');
    });
  }, 120_000);

  it("edits the endpoint's settings: the API's message for a bad value, the saved values after a reload", async () => {
    await step('endpoint settings', async () => {
      await go('Serverless');
      await page.getByRole('link', { name: 'console-echo' }).click();
      const settings = page.getByRole('region', { name: 'Settings' });
      await settings.waitFor();
      const save = () => settings.getByRole('button', { name: 'Save settings' }).click();
      const alert = settings.getByRole('alert');
      // The form leaves the checks to the API: its problem+json names the field.
      await settings.getByLabel('Idle timeout (s)').fill('-5');
      await save();
      await until(
        () => alert.textContent(),
        (text) => /idleTimeout/.test(text ?? ''),
      );
      await settings.getByLabel('Idle timeout (s)').fill('90');
      await settings.getByLabel('Workers min').fill('3');
      await save();
      await until(
        () => alert.textContent(),
        (text) => /workers\.min \(3\) must not be greater than workers\.max \(1\)/.test(text ?? ''),
      );
      await settings.getByLabel('Workers min').fill('0');
      await settings.getByLabel('Name', { exact: true }).fill('renamed-echo');
      await settings.getByLabel('Scaler', { exact: true }).selectOption('REQUEST_COUNT');
      await settings.getByLabel('Scaler value').fill('4');
      await save();
      await settings.getByRole('status').getByText('Saved.').waitFor();
      await expect(alert.count()).resolves.toBe(0);

      await page.reload();
      await page.getByRole('heading', { level: 2, name: 'renamed-echo' }).waitFor();
      await expect(settings.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('renamed-echo');
      await expect(settings.getByLabel('Idle timeout (s)').inputValue()).resolves.toBe('90');
      await expect(settings.getByLabel('Workers min').inputValue()).resolves.toBe('0');
      await expect(settings.getByLabel('Scaler', { exact: true }).inputValue()).resolves.toBe(
        'REQUEST_COUNT',
      );
      await expect(settings.getByLabel('Scaler value').inputValue()).resolves.toBe('4');
      await page.getByText('0–1, idle timeout 90 s').waitFor();
      await page.getByText('4 requests per worker').waitFor();
      await expectAccessible('endpoint settings');
      await settings.scrollIntoViewIfNeeded();
      await snapshot('endpoint-settings');
    });
  });

  it('creates a pod from an image, follows its logs, stops and starts it', async () => {
    await step('pod', async () => {
      await go('Pods');
      await page.getByLabel('Name', { exact: true }).fill('console-ticker');
      await page.getByLabel('Image', { exact: true }).fill('test/ticker');
      await page.getByLabel('GPU type').selectOption(podGpu.id);
      await page.getByRole('button', { name: 'Create pod' }).click();
      await page.getByRole('heading', { level: 2, name: 'console-ticker' }).waitFor();
      const status = page.locator('.card .badge').first();
      const reaches = (want: string) =>
        until(
          () => status.textContent(),
          (text) => text === want,
        );
      await reaches('RUNNING');
      const lines = page.getByRole('log').locator(':scope > div');
      await lines
        .filter({ hasText: / tick 3$/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await expectAccessible('pod');
      await snapshot('pod');

      // Only the actions the pod's status allows: a running pod offers no Start.
      await expect(page.getByRole('button', { name: 'Start', exact: true }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Stop', exact: true }).click();
      await reaches('EXITED');
      await expect(page.getByRole('button', { name: 'Stop', exact: true }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await reaches('RUNNING');
      // The second run's lines follow the first's in the same open stream: "tick 1" twice.
      await until(
        () => lines.filter({ hasText: / tick 1$/ }).count(),
        (n) => n >= 2,
      );
      await go('Pods');
      await page.getByRole('link', { name: 'console-ticker' }).waitFor();
      await snapshot('pods');
    });
  }, 120_000);

  it("creates a cluster (after the API's validation message) and sees its members reach RUNNING", async () => {
    await step('cluster', async () => {
      await go('Clusters');
      await page.getByLabel('Name', { exact: true }).fill('console-cluster');
      await page.getByLabel('GPU type').selectOption(clusterGpu.id);
      await page.getByLabel('Pods', { exact: true }).fill('1');
      await page.getByRole('button', { name: 'Create cluster' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/podCount/);
      await page.getByLabel('Pods', { exact: true }).fill('2');
      await page.getByRole('button', { name: 'Create cluster' }).click();
      await page.getByRole('heading', { level: 2, name: 'console-cluster' }).waitFor();
      const members = page.getByRole('table', { name: 'Members' });
      await until(
        () => members.locator('tbody tr', { hasText: 'RUNNING' }).count(),
        (n) => n === 2,
        60_000,
      );
      // Each member with its rank (one of them the primary, by its role).
      const ranks = await members.locator('tbody tr td:first-child').allTextContents();
      expect(new Set(ranks).size).toBe(2);
      await expect(page.getByText(/\d+\.\d+\.\d+\.\d+\/\d+/).count()).resolves.toBeGreaterThan(0);
      await expectAccessible('cluster');
      await snapshot('cluster');
      await go('Clusters');
      await snapshot('clusters');
    });
  }, 120_000);

  it('shows a usage row for the pod and offers the CSV', async () => {
    await step('usage', async () => {
      await go('Usage');
      await page.getByLabel('Resources').selectOption('pods');
      const rows = page.getByRole('table', { name: 'Usage records' }).locator('tbody tr');
      await until(
        () => rows.count(),
        (n) => n > 0,
      );
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download CSV' }).click();
      const file = await (await download).path();
      expect(readFileSync(file, 'utf8').split('\n')[0]).toMatch(/^time,/);
      await expectAccessible('usage');
      await snapshot('usage');
    });
  });

  it("shows the account's audit trail, filtered", async () => {
    await step('audit trail', async () => {
      await go('Audit trail');
      const rows = page.getByRole('table', { name: 'Audit entries' }).locator('tbody tr');
      await until(
        () => rows.count(),
        (n) => n > 0,
      );
      await page.getByLabel('Action', { exact: true }).fill('pod.create');
      await page.getByRole('button', { name: 'Apply' }).click();
      // Rows while the filtered page loads are none: wait for some, each a pod.create.
      await until(
        () => rows.allTextContents(),
        (texts) => texts.length > 0 && texts.every((row) => row.includes('pod.create')),
      );
      await expectAccessible('audit trail');
      await snapshot('audit');
    });
  });

  it('shows the overview and the other pages, in both themes', async () => {
    await step('overview and the rest', async () => {
      await go('Overview');
      await page.getByRole('link', { name: 'renamed-echo' }).waitFor();
      await snapshot('overview');
      for (const [label, name] of [
        ['Registry credentials', 'registries'],
        ['Network volumes', 'volumes'],
        ['SSH keys', 'ssh-keys'],
        ['API keys', 'api-keys'],
      ] as const) {
        await go(label);
        await expectAccessible(label);
        await snapshot(name);
      }
      await page.getByRole('button', { name: 'Dark theme' }).click();
      await expect(page.evaluate('document.documentElement.dataset.theme')).resolves.toBe('dark');
      await go('Overview');
      await expectAccessible('overview, dark');
      await snapshot('overview-dark');
      await page.getByRole('button', { name: 'Dark theme' }).click();
    });
  });

  /** The text of the focused element: where the focus went back to after a dialog closed. */
  const focused = () => page.evaluate('document.activeElement ? document.activeElement.textContent : null');

  it('makes an API key: the secret once, in a dialog Escape closes; signs in with it; revokes it after a confirm', async () => {
    let secret = '';
    await step('create a key', async () => {
      await go('API keys');
      await page.getByLabel('Name').fill('console-made');
      // The scope select: opened by its button, an option picked from its list box.
      await page.getByRole('button', { name: /Scope/ }).click();
      await page.getByRole('option', { name: 'full access' }).waitFor();
      await page.getByRole('option', { name: 'read only' }).click();
      await page.getByRole('button', { name: 'Create key' }).click();
      const dialog = page.getByRole('dialog', { name: 'API key console-made created' });
      await dialog.waitFor();
      await expect(dialog.getByText('you will not see it again').count()).resolves.toBe(1);
      await dialog.getByRole('button', { name: 'Copy key' }).waitFor();
      secret = (await dialog.locator('code.secret').textContent()) ?? '';
      expect(secret).toMatch(/^cpk_[A-Za-z0-9_-]{43}$/);
      await expectAccessible('new API key dialog');
      await snapshot('api-key-created');
      // Keyboard: Escape closes the dialog and the focus goes back to the button that opened it.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await expect(focused()).resolves.toBe('Create key');
      // Shown once: the page no longer has it, the list only its first characters.
      const row = page.getByRole('row', { name: /console-made/ });
      await row.waitFor();
      await expect(page.content()).resolves.not.toContain(secret);
      await expect(row.textContent()).resolves.toContain(secret.slice(0, 12));
      await expectAccessible('API keys');
    });

    await step('sign in with it: a read key, no create or revoke button', async () => {
      await go('Overview');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(secret);
      await expect(page.getByText('read only').count()).resolves.toBe(1);
      await go('API keys');
      await page.getByRole('row', { name: /console-made/ }).waitFor();
      await expect(page.getByRole('button', { name: WRITE_BUTTONS }).count()).resolves.toBe(0);
      await expectAccessible('API keys, read key');
      await go('Overview');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(fullKey);
    });

    await step('revoke it behind a confirm dialog', async () => {
      await go('API keys');
      const revoke = page.getByRole('button', { name: 'Revoke key console-made' });
      await revoke.click();
      const confirm = page.getByRole('alertdialog', { name: 'Revoke key console-made?' });
      await confirm.waitFor();
      // The safe choice has the focus; Escape cancels and gives the focus back to the row's button.
      await expect(focused()).resolves.toBe('Cancel');
      await expectAccessible('revoke confirmation');
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'detached' });
      await expect(focused()).resolves.toBe('Revoke');
      const stillWorks = await fetch(`${base}/v2/account/api-keys`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(stillWorks.status).toBe(200);

      await revoke.click();
      await confirm.getByRole('button', { name: 'Revoke' }).click();
      await revoke.waitFor({ state: 'detached' });
      await until(
        async () =>
          (await fetch(`${base}/v2/account/api-keys`, { headers: { authorization: `Bearer ${secret}` } }))
            .status,
        (status) => status === 401,
        5_000,
      );
      await page.getByRole('tab', { name: /Revoked/ }).click();
      await page.getByRole('row', { name: /console-made/ }).waitFor();
      await page.getByRole('tab', { name: /Active/ }).click();
      await snapshot('api-keys');
      // The next test signs out and in again, which lands on the page of the current hash.
      await go('Overview');
    });
  });

  it('signed in with a read key, offers no button that would write', async () => {
    await step('read key', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(readKey);
      await expect(page.getByText('read only').count()).resolves.toBe(1);
      const pages = [
        'Pods',
        'Clusters',
        'Serverless',
        'Templates',
        'Registry credentials',
        'Network volumes',
        'SSH keys',
        'API keys',
      ];
      for (const label of pages) {
        await go(label);
        await page.getByRole('heading', { level: 2 }).first().waitFor();
        await expect(page.getByRole('button', { name: WRITE_BUTTONS }).count()).resolves.toBe(0);
      }
      for (const link of ['console-ticker']) {
        await go('Pods');
        await page.getByRole('link', { name: link }).click();
        await page.getByRole('heading', { level: 2, name: link }).waitFor();
        await expect(page.getByRole('button', { name: WRITE_BUTTONS }).count()).resolves.toBe(0);
      }
      await go('Serverless');
      await page.getByRole('link', { name: 'renamed-echo' }).click();
      await page.getByRole('table', { name: 'Workers', exact: true }).waitFor();
      await expect(page.getByRole('button', { name: WRITE_BUTTONS }).count()).resolves.toBe(0);
    });
  });

  it('broke no CSP rule and threw no error in the page', () => {
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
