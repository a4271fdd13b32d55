import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

/**
 * What the monitoring component (deploy/components/monitoring) is checked against: the metric names the apps
 * register, the names a PromQL expression reads, the rule groups of the PrometheusRule manifest (the one source of
 * the rules promtool and the e2e Prometheus load) and the panels of the Grafana dashboard.
 */

export const MONITORING_DIR = 'deploy/components/monitoring';

export interface RuleGroup {
  name: string;
  rules: { alert?: string; record?: string; expr: string; annotations?: Record<string, string> }[];
}

/** `spec.groups` of the PrometheusRule, as a Prometheus rule file's `groups`. */
export function ruleGroups(root: string): RuleGroup[] {
  const manifest = parse(readFileSync(join(root, MONITORING_DIR, 'prometheus-rules.yaml'), 'utf8')) as {
    kind: string;
    spec: { groups: RuleGroup[] };
  };
  if (manifest.kind !== 'PrometheusRule') throw new Error('prometheus-rules.yaml is not a PrometheusRule');
  return manifest.spec.groups;
}

/** Every query of the dashboard, with the panel it belongs to. */
export function dashboardQueries(root: string): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(join(root, MONITORING_DIR, 'dashboards/gpucp.json'), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
  );
}

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers left once strings, label matchers, ranges, grouping
 * clauses, function calls and keywords are taken out. Grafana's `$__rate_interval`-style variables count as ranges.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (match[2] || KEYWORDS.has(match[1].toLowerCase())) continue;
    names.add(match[1]);
  }
  return [...names];
}

/** Sources under apps/ and libs/ that register a prom-client metric with the process registry. */
export function registeringSources(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry === 'node_modules' || entry === 'dist') continue;
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ts$/.test(entry) && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry)) {
        const text = readFileSync(path, 'utf8');
        if (/registers:\s*\[metricsRegistry\]/.test(text)) found.push(relative(root, path));
      }
    }
  };
  for (const top of ['apps', 'libs']) walk(join(root, top));
  return found.sort();
}

/** The series names a registry exports: a histogram's _bucket, _sum and _count; a summary's _sum and _count. */
export function exportedNames(metrics: { name: string; type: string }[]): Set<string> {
  const names = new Set<string>();
  for (const { name, type } of metrics) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

/** Series Prometheus makes itself for every target. */
export const SCRAPE_SERIES = ['up', 'scrape_duration_seconds', 'scrape_samples_scraped'];

/** `$PROMTOOL_PATH` or Debian's promtool (scripts/lib/infra-apps.mjs installs it). */
export function promtool(args: string[], cwd: string): string {
  return execFileSync(process.env.PROMTOOL_PATH || '/usr/bin/promtool', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
}
