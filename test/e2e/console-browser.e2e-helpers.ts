import { expect } from '@jest/globals';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../support/paths.js';
import { CHROMIUM, CHROMIUM_ARGS } from './console-sso.e2e-helpers.js';

const FAILURES = join(ROOT, 'test-results', 'console');
/** `CONSOLE_SCREENSHOTS=docs/console` (scripts/console-screenshots.mjs): the pages' pictures go there too. */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? join(ROOT, process.env.CONSOLE_SCREENSHOTS) : null;

/** A console signed in with a key in Debian's Chromium, as the console's browser tests drive it. */
export interface ConsoleBrowser {
  page: Page;
  /** Runs a step; on failure leaves a screenshot of the page in test-results/console/. */
  step(name: string, fn: () => Promise<void>): Promise<void>;
  /** The page, whole, into CONSOLE_SCREENSHOTS when it is set. */
  snapshot(name: string): Promise<void>;
  /** axe-core over the page as it is: no serious or critical violation (WCAG 2.1 A and AA rules). */
  expectAccessible(where: string): Promise<void>;
  /** What the page broke of its CSP and what it threw, for the test's last check. */
  cspViolations: string[];
  pageErrors: string[];
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
  const page = await context.newPage();
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.stack ?? error.message));
  await page.goto(`${base}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return {
    page,
    cspViolations,
    pageErrors,
    async step(stepName, fn) {
      try {
        await fn();
      } catch (error) {
        mkdirSync(FAILURES, { recursive: true });
        const file = join(FAILURES, `${name}-${stepName.replace(/[^a-z0-9]+/gi, '-')}.png`);
        await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
        (error as Error).message += `\n(screenshot: ${file})`;
        throw error;
      }
    },
    async snapshot(file) {
      if (!SCREENSHOTS) return;
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${file}.png`), fullPage: true });
    },
    async expectAccessible(where) {
      const results = await new AxeBuilder({ page })
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
