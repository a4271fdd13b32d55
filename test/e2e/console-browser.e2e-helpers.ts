import { expect } from '@jest/globals';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { ROOT } from '../support/paths.js';
import { CHROMIUM, CHROMIUM_ARGS } from './console-sso.e2e-helpers.js';

const FAILURES = join(ROOT, 'test-results', 'console');
/** `CONSOLE_SCREENSHOTS=docs/console` (scripts/console-screenshots.mjs): the pages' pictures go there too. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? join(ROOT, process.env.CONSOLE_SCREENSHOTS) : null;

/** A console signed in with a key in Debian's Chromium, as the console's browser tests drive it. */
export interface ConsoleBrowser {
  /** The signed-in tab: another one after `signIn`. */
  readonly page: Page;
  /** Runs a step; on failure leaves a screenshot of the page in test-results/console/. */
  step(name: string, fn: () => Promise<void>): Promise<void>;
  /**
   * The page, whole, into CONSOLE_SCREENSHOTS when it is set; or only what the window shows (`fullPage: false`),
   * or only one element (`of`).
   */
  snapshot(name: string, options?: { of?: Locator; fullPage?: boolean }): Promise<void>;
  /** axe-core over the page as it is: no serious or critical violation (WCAG 2.1 A and AA rules). */
  expectAccessible(where: string): Promise<void>;
  /** What the page broke of its CSP and what it threw, for the test's last check. */
  cspViolations: string[];
  pageErrors: string[];
  /** Closes the tab for a fresh one (its own session storage) signed in with `key`, on its Overview. */
  signIn(key: string): Promise<void>;
  close(): Promise<void>;
}

/** A fresh profile, the console at `base` signed in with `key` (on its Overview). */
export async function openConsole(base: string, key: string, name: string): Promise<ConsoleBrowser> {
  const context: BrowserContext = await chromium.launchPersistentContext(
    mkdtempSync(join(tmpdir(), `console-${name}-`)),
    {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1366, height: 900 },
      colorScheme: 'light',
    },
  );
  let page: Page | undefined;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  async function signIn(signInKey: string): Promise<void> {
    await page?.close();
    const tab = await context.newPage();
    page = tab;
    tab.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    tab.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
    await tab.goto(`${base}/console/`);
    await tab.getByLabel('API key').fill(signInKey);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }
  await signIn(key);
  const current = (): Page => page!;
  return {
    get page() {
      return current();
    },
    cspViolations,
    pageErrors,
    signIn,
    async step(stepName, fn) {
      try {
        await fn();
      } catch (error) {
        mkdirSync(FAILURES, { recursive: true });
        const file = join(FAILURES, `${name}-${stepName.replace(/[^a-z0-9]+/gi, '-')}.png`);
        await current()
          .screenshot({ path: file, fullPage: true })
          .catch(() => undefined);
        (error as Error).message += `\n(screenshot: ${file})`;
        throw error;
      }
    },
    async snapshot(file, { of, fullPage = true } = {}) {
      if (!SCREENSHOTS) return;
      mkdirSync(SCREENSHOTS, { recursive: true });
      const path = join(SCREENSHOTS, `${file}.png`);
      await (of ? of.screenshot({ path }) : current().screenshot({ path, fullPage }));
    },
    async expectAccessible(where) {
      const results = await new AxeBuilder({ page: current() })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      const serious = results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${where}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(serious).toEqual([]);
    },
    close: () => context.close(),
  };
}
