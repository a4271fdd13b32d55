import { beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { metricsRegistry } from '@app/observability';
import { ROOT } from '../support/paths.js';
import { loadCheckContext } from './context.js';
import { type K8sObject, checkManifests, formatFindings } from './manifest-checks.js';
import {
  MONITORING_DIR,
  SCRAPE_SERIES,
  dashboardQueries,
  exportedNames,
  metricNames,
  promtool,
  registeringSources,
  ruleGroups,
} from './monitoring-model.js';
import { findRenderer, prodSecretFiles, renderOverlay } from './render.js';
import { validateSchemas } from './schemas.js';
import { unknownFields } from './strict.js';

/**
 * deploy/components/monitoring: rendered into the prod overlay it passes every manifest check and validates against
 * the prometheus-operator's CRD schemas; its rules pass `promtool check rules` and the promtool unit tests of each
 * alert (monitoring/alerts.test.yaml); every metric the rules and the dashboard read is one the apps register; every
 * runbook_url names a section of docs/operations.md.
 */

const DEPLOY = join(ROOT, 'deploy');

function renderProdWithMonitoring(): K8sObject[] {
  const kustomization = readFileSync(join(DEPLOY, 'overlays/prod/kustomization.yaml'), 'utf8');
  const withMonitoring = kustomization.replace(
    /^components:\n/m,
    'components:\n  - ../../components/monitoring\n',
  );
  expect(withMonitoring).not.toBe(kustomization);
  return renderOverlay(findRenderer(), DEPLOY, 'prod', {
    ...prodSecretFiles(DEPLOY),
    'overlays/prod/kustomization.yaml': withMonitoring,
  });
}

/** The `## ` and `### ` headings of docs/operations.md as GitHub anchors them. */
function operationsAnchors(): Set<string> {
  const text = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  return new Set(
    [...text.matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('deploy/components/monitoring', () => {
  let objects: K8sObject[];
  let exported: Set<string>;

  beforeAll(async () => {
    objects = renderProdWithMonitoring();
    // Importing every source that registers a metric fills the process registry as the apps' processes do.
    for (const source of registeringSources(ROOT)) await import(join(ROOT, source));
    exported = exportedNames(
      (await metricsRegistry.getMetricsAsJSON()).map((m) => ({ name: m.name, type: String(m.type) })),
    );
  });

  it('renders into the prod overlay: a PodMonitor per app, the rules, the dashboard; valid and checked', async () => {
    const ctx = await loadCheckContext(ROOT);
    const monitors = objects.filter((o) => o.kind === 'PodMonitor');
    expect(monitors.map((o) => o.metadata.name).sort()).toEqual(ctx.apps.map((a) => a.name).sort());
    for (const monitor of monitors) {
      const spec = monitor.spec as {
        selector: { matchLabels: Record<string, string> };
        podMetricsEndpoints: { port: string; path: string }[];
      };
      const deployment = objects.find(
        (o) => o.kind === 'Deployment' && o.metadata.name === monitor.metadata.name,
      )!;
      const template = (
        deployment.spec as {
          template: {
            metadata: { labels: Record<string, string> };
            spec: { containers: { ports: { name: string }[] }[] };
          };
        }
      ).template;
      // It selects the app's pods and scrapes the port the app serves /metrics on.
      expect(template.metadata.labels).toMatchObject(spec.selector.matchLabels);
      expect(spec.podMetricsEndpoints).toEqual([
        expect.objectContaining({ port: 'metrics', path: '/metrics' }),
      ]);
      expect(template.spec.containers[0].ports.map((p) => p.name)).toContain('metrics');
    }
    const dashboard = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name === 'gpucp-grafana-dashboard',
    );
    expect(dashboard?.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    expect(JSON.parse((dashboard?.data as Record<string, string>)['gpucp.json'])).toMatchObject({
      title: 'gpucp',
    });
    expect(kindsOf(objects)).toContain('PrometheusRule/gpucp');
    const findings = [
      ...(await validateSchemas(objects)),
      ...unknownFields(objects),
      ...checkManifests(objects, ctx),
    ];
    expect(formatFindings(findings)).toBe('');
  });

  it('passes promtool check rules and the unit tests of every alert', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpucp-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: ruleGroups(ROOT) }));
      copyFileSync(join(ROOT, 'test/deploy/monitoring/alerts.test.yaml'), join(dir, 'alerts.test.yaml'));
      expect(promtool(['check', 'rules', 'rules.yaml'], dir)).toMatch(/SUCCESS/);
      let output: string;
      try {
        output = promtool(['test', 'rules', 'alerts.test.yaml'], dir);
      } catch (error) {
        output =
          String((error as { stdout?: string }).stdout) + String((error as { stderr?: string }).stderr);
      }
      expect(output).toMatch(/SUCCESS/);
      // Every alert has a test.
      const tested = readFileSync(join(dir, 'alerts.test.yaml'), 'utf8');
      for (const rule of ruleGroups(ROOT).flatMap((g) => g.rules)) {
        expect({ alert: rule.alert, tested: tested.includes(`alertname: ${rule.alert}\n`) }).toEqual({
          alert: rule.alert,
          tested: true,
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads only metrics the apps register, in the rules and in every dashboard panel', () => {
    expect(exported.has('bus_commands_handled_total')).toBe(true);
    expect(exported.has('endpoint_job_delay_seconds_bucket')).toBe(true);
    const known = new Set([...exported, ...SCRAPE_SERIES]);
    const unknown = [
      ...ruleGroups(ROOT).flatMap((g) => g.rules.map((r) => ({ where: `rule ${r.alert}`, expr: r.expr }))),
      ...dashboardQueries(ROOT).map((q) => ({ where: `panel ${q.panel}`, expr: q.expr })),
    ].flatMap(({ where, expr }) =>
      metricNames(expr)
        .filter((n) => !known.has(n))
        .map((n) => `${where}: ${n}`),
    );
    expect(unknown).toEqual([]);
    expect(dashboardQueries(ROOT).length).toBeGreaterThan(20);
  });

  it('names what a dashboard query reads, so an unknown name would be caught', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, job) (rate(bus_command_handle_seconds_bucket{job=~"$job"}[$__rate_interval])))',
      ),
    ).toEqual(['bus_command_handle_seconds_bucket']);
    expect(
      metricNames('max by (endpoint) (a_x) > on (endpoint) max(b_y{k="v"}) and on (instance) c_z == 1'),
    ).toEqual(['a_x', 'b_y', 'c_z']);
  });

  it('gives every alert a severity, a summary, a description and a runbook in docs/operations.md', () => {
    const anchors = operationsAnchors();
    for (const rule of ruleGroups(ROOT).flatMap((g) => g.rules)) {
      const { labels, annotations } = rule as {
        labels?: Record<string, string>;
        annotations: Record<string, string>;
      };
      const runbook = /^docs\/operations\.md#(.+)$/.exec(annotations.runbook_url)?.[1];
      expect({
        alert: rule.alert,
        severity: ['critical', 'warning', 'info'].includes(labels?.severity ?? ''),
        summary: !!annotations.summary,
        description: !!annotations.description,
        runbook: runbook !== undefined && anchors.has(runbook),
      }).toEqual({ alert: rule.alert, severity: true, summary: true, description: true, runbook: true });
    }
  });

  it('is left out of the overlays: installing it needs the prometheus-operator CRDs', () => {
    for (const overlay of ['dev', 'prod']) {
      const text = readFileSync(join(DEPLOY, 'overlays', overlay, 'kustomization.yaml'), 'utf8');
      expect(text).not.toContain(MONITORING_DIR.replace('deploy/', ''));
    }
  });
});

function kindsOf(objects: K8sObject[]): string[] {
  return objects.map((o) => `${o.kind}/${o.metadata.name}`);
}
