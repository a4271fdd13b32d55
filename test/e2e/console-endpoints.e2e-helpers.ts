import { expect } from '@jest/globals';
import { AxeBuilder } from '@axe-core/playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { until } from './pods.e2e-helpers.js';

/** Axe (WCAG 2.1 A and AA) finds nothing serious or critical on the page. */
export async function expectNoSeriousAxeViolations(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${where}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious).toEqual([]);
}

/**
 * A load-balancing endpoint's metric charts (1 h window, minute steps) show the requests the test sent, read from
 * the charts' tables (their captions name them; several share words, hence `exact`): per status class as rates per
 * minute, their latency, and its one worker by status.
 */
export async function expectLbMetricCharts(
  metrics: Locator,
  expected: { status2xx: number; status4xx: number },
): Promise<void> {
  const table = (name: string) => metrics.getByRole('table', { name, exact: true });
  // Column n of the table's data cells (its first, the time, is a header cell).
  const column = async (name: string, n: number) =>
    (await table(name).locator(`tbody tr td:nth-of-type(${n})`).allTextContents()).map(Number);
  const total = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const requests = 'Requests, in requests/min';
  await expect(table(requests).locator('thead th').allTextContents()).resolves.toEqual([
    'Time',
    '2xx',
    '4xx',
    '5xx',
    'Proxy errors',
  ]);
  // The page reads the metrics every 15 s; the gateway records its counts every LB_METRICS_FLUSH_MS.
  await until(
    'the requests in the chart',
    async () => total(await column(requests, 1)) === expected.status2xx,
    60_000,
  );
  await expect(column(requests, 1)).resolves.toHaveLength(60);
  expect(total(await column(requests, 2))).toBe(expected.status4xx);
  expect(total(await column(requests, 3)) + total(await column(requests, 4))).toBe(0);
  const latency = 'Request latency, in ms';
  await expect(table(latency).locator('thead th').allTextContents()).resolves.toEqual(['Time', 'p50', 'p99']);
  expect((await column(latency, 1)).filter((v) => Number.isFinite(v)).length).toBeGreaterThan(0);
  const workersChart = 'Workers, in workers';
  const finite = (values: number[]) => values.filter((v) => Number.isFinite(v));
  const [running, idle] = [finite(await column(workersChart, 1)), finite(await column(workersChart, 2))];
  // Each status is its step's peak: the one worker, RUNNING at one flush and IDLE at the next, is 1 in both
  // columns of that step, never more, and shown in one of them at least once.
  expect([Math.max(...running), Math.max(...idle)]).toEqual(expect.arrayContaining([1]));
  expect(Math.max(...running, ...idle)).toBe(1);
}

/** GETs each path through the gateway (`lbUrl` = `<gateway>/lb/<id>`), one after another; their statuses. */
export async function sendLbRequests(lbUrl: string, key: string, paths: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const path of paths) {
    const response = await fetch(`${lbUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

/** Presses every chart's "Show as table" in `scope`: `count` tables on screen. */
export async function showChartTables(scope: Locator, count: number): Promise<void> {
  const toggles = scope.getByRole('button', { name: 'Show as table' });
  for (let i = 0; i < (await toggles.count()); i += 1) await toggles.nth(i).click();
  await expect(scope.locator('.chart-table').count()).resolves.toBe(count);
}

/** A picture of the page (whole) or of one part into `dir` as `<name>.png`; nothing without a `dir`. */
export async function screenshotFor(
  dir: string | null,
  page: Page,
  name: string,
  of?: Locator,
): Promise<void> {
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await (of ?? page).screenshot({ path: join(dir, `${name}.png`), fullPage: !of });
}
