import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../support/paths.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { CHROMIUM, CHROMIUM_ARGS } from './console-sso.e2e-helpers.js';

const FAILURES = join(ROOT, 'test-results', 'console');
/** `CONSOLE_SCREENSHOTS=docs/console` (scripts/console-screenshots.mjs): the pages' pictures go there too. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? join(ROOT, process.env.CONSOLE_SCREENSHOTS) : null;

/** The SDL as the page's text: tags dropped, the five escapes undone. */
function textOf(html: string): string {
  const entities: Record<string, string> = {
    '&amp;': '&',
    '&lt;': '<',
    '&gt;': '>',
    '&quot;': '"',
    '&#39;': "'",
  };
  return html.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]);
}

/**
 * The API reference (docs/adr/0040-api-reference-page.md) from a running gateway: the pages and every file they
 * load answered without a key under the strict CSP, then the pages in Chromium: Swagger UI lists the real
 * operations of /v1 and /v2, the GraphQL page shows the schema, with no CSP violation, no script error, no request
 * leaving the host, and no serious axe finding.
 */
describe('the API reference pages', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  const offHost: string[] = [];

  async function step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      mkdirSync(FAILURES, { recursive: true });
      const file = join(FAILURES, `api-reference-${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
      await page?.screenshot({ path: file, fullPage: true }).catch(() => undefined);
      (error as Error).message += `\n(screenshot: ${file})`;
      throw error;
    }
  }

  async function snapshot(name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
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

  async function open(path: string): Promise<void> {
    await page?.close();
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
    await page.goto(`${base}${path}`);
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: set CHROMIUM_PATH`);
    db = await createTestDatabase('api_reference', { apps: ['gateway'] });
    system = await startApps({ apps: ['gateway'], databaseUrl: db.url });
    base = system.url('gateway');
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'api-reference-')), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 900 },
      colorScheme: 'light',
    });
    // Every request of every page, the fonts and images of the stylesheets included: none may leave the host.
    context.on('request', (request) => {
      const { protocol, hostname } = new URL(request.url());
      if (protocol === 'data:') return;
      if (hostname !== new URL(base).hostname) offHost.push(request.url());
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  }, 60_000);

  it('serves the pages and the files they load without a key, under the strict CSP', async () => {
    for (const path of ['/docs', '/docs/v1', '/docs/v2', '/docs/graphql']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-|https?:/);
      const html = await response.text();
      const files = [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const asset = await fetch(`${base}${file}`);
        expect([file, asset.status]).toEqual([file, 200]);
        expect(asset.headers.get('content-encoding')).toBe('gzip');
      }
    }
    const sdl = await (await fetch(`${base}/graphql/schema.graphql`)).text();
    const graphqlPage = await (await fetch(`${base}/docs/graphql`)).text();
    const pre = /<pre class="sdl"[^>]*><code>([\s\S]*)<\/code><\/pre>/.exec(graphqlPage)?.[1] ?? '';
    expect(sdl).toMatch(/^type Query \{/m);
    expect(textOf(pre)).toBe(sdl);
  });

  it.each([
    ['v1', 'REST interface v1'],
    ['v2', 'REST interface v2'],
  ] as const)(
    'renders the %s operations with Swagger UI, from this host only',
    async (iface, title) => {
      await step(`rest-${iface}`, async () => {
        await open(`/docs/${iface}`);
        await page.getByRole('heading', { name: new RegExp(title) }).waitFor();
        const list = page
          .locator('.opblock')
          .filter({ has: page.locator(`[data-path="/${iface}/pods"]`) })
          .filter({ hasText: "List the caller's pods" });
        await list.waitFor();
        await expect(page.locator('.opblock').count()).resolves.toBeGreaterThan(15);
        await list.locator('.opblock-summary-control').click();
        await list.getByRole('heading', { name: 'Responses' }).waitFor();
        // Read-only: no "Try it out" anywhere (its requests would go to the documents' templated server).
        await expect(page.getByRole('button', { name: 'Try it out' }).count()).resolves.toBe(0);
        await snapshot(`api-reference-${iface}`);
        await expectAccessible(`/docs/${iface}`);
      });
    },
    90_000,
  );

  it('shows the GraphQL schema, highlighted, with type names linked to their definitions', async () => {
    await step('graphql', async () => {
      await open('/docs');
      await page.getByRole('heading', { level: 1, name: 'API reference' }).waitFor();
      await expectAccessible('/docs');
      await page
        .getByRole('navigation', { name: 'API reference' })
        .getByRole('link', { name: 'GraphQL' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'GraphQL schema' }).waitFor();
      await expect(page.locator('pre.sdl').textContent()).resolves.toMatch(/type Query \{/);
      await expect(page.locator('.sdl-keyword').count()).resolves.toBeGreaterThan(10);
      await snapshot('api-reference-graphql');
      const reference = page.locator('pre.sdl a').first();
      const name = (await reference.textContent()) ?? '';
      await reference.click();
      await page.waitForURL(new RegExp(`#type-${name}$`));
      await expect(page.locator(`#type-${name}`).isVisible()).resolves.toBe(true);
      await expectAccessible('/docs/graphql');
    });
  }, 60_000);

  it('loaded nothing from another host and broke no policy', () => {
    expect(offHost).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
