import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppName } from '@app/contracts';
import { ROOT } from '../support/paths.js';
import { startPrometheus, type PrometheusServer } from '../support/prometheus.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { dashboardQueries, metricNames, ruleGroups, SCRAPE_SERIES } from '../deploy/monitoring-model.js';
import { until } from './pods.e2e-helpers.js';

/**
 * deploy/components/monitoring against the running apps: a real Prometheus, with the rule groups of the
 * PrometheusRule manifest (the file's own spec.groups, not a copy), scrapes every app each second as the PodMonitors
 * do (job = the app's name). Every metric the rules and the dashboard read is in some app's /metrics; when a
 * queue-broker replica is killed, GpucpReplicaDown goes pending, then fires after its `for` (1 m), for that replica
 * only, and GpucpAppDown stays silent while the other replica answers.
 */

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

describe('monitoring: Prometheus scraping the apps, the alert rules', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let prometheus: PrometheusServer;
  const target = (app: AppName, replica: number) => new URL(system.metricsUrl(app, replica)).host;

  beforeAll(async () => {
    db = await createTestDatabase('monitoring');
    system = await startApps({ databaseUrl: db.url, replicas: { 'queue-broker': 2 } });
    prometheus = await startPrometheus({
      jobs: Object.fromEntries(
        system.apps.map((app) => [
          app,
          Array.from({ length: system.replicas(app) }, (_, replica) => target(app, replica)),
        ]),
      ),
      ruleGroups: ruleGroups(ROOT),
    });
  });

  afterAll(async () => {
    await prometheus?.stop();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  const alerts = async () => (await prometheus.api<{ alerts: Alert[] }>('alerts')).alerts;

  it('scrapes every replica of every app, and every metric the rules and the dashboard read is exported', async () => {
    await until(
      'every target up',
      async () => {
        const { activeTargets } = await prometheus.api<{ activeTargets: { health: string }[] }>('targets');
        return activeTargets.length === 6 && activeTargets.every((t) => t.health === 'up');
      },
      20_000,
    );
    const exported = new Set(SCRAPE_SERIES);
    for (const app of system.apps) {
      const text = await (await fetch(system.metricsUrl(app))).text();
      for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        exported.add(name);
        if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) exported.add(name + s);
      }
    }
    const read = [
      ...ruleGroups(ROOT).flatMap((g) => g.rules.map((r) => r.expr)),
      ...dashboardQueries(ROOT).map((q) => q.expr),
    ].flatMap(metricNames);
    expect([...new Set(read)].filter((name) => !exported.has(name))).toEqual([]);
    // The fleet, counted at the scrape: the default fleet file's hosts, all READY.
    const fleet = JSON.parse(
      readFileSync(join(ROOT, 'apps/cluster-scheduler/fleet/default-fleet.json'), 'utf8'),
    ) as {
      hosts: unknown[];
    };
    const scheduler = await (await fetch(system.metricsUrl('cluster-scheduler'))).text();
    expect(scheduler).toContain(`fleet_hosts{state="READY"} ${fleet.hosts.length}\n`);
    expect(scheduler).toContain('fleet_hosts{state="UNHEALTHY"} 0\n');
    // Nothing fires while everything runs.
    expect((await alerts()).filter((a) => a.labels.alertname.startsWith('GpucpReplica'))).toEqual([]);
  });

  it('fires GpucpReplicaDown for a killed queue-broker replica after a minute, not GpucpAppDown', async () => {
    const killed = target('queue-broker', 1);
    await system.kill('queue-broker', 'SIGKILL', 1);
    const killedAt = Date.now();
    const replicaDown = async (state: Alert['state']) =>
      (await alerts()).find(
        (a) => a.labels.alertname === 'GpucpReplicaDown' && a.state === state && a.labels.instance === killed,
      );
    const pending = await until('GpucpReplicaDown pending', () => replicaDown('pending'), 15_000);
    expect(pending.labels).toMatchObject({ job: 'queue-broker', severity: 'warning' });
    const firing = await until('GpucpReplicaDown firing', () => replicaDown('firing'), 90_000);
    expect(firing.labels).toMatchObject({ job: 'queue-broker', instance: killed, severity: 'warning' });
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(60_000);
    const all = await alerts();
    expect(all.filter((a) => a.labels.alertname === 'GpucpAppDown')).toEqual([]);
    expect(
      all.filter((a) => a.labels.alertname === 'GpucpReplicaDown').map((a) => a.labels.instance),
    ).toEqual([killed]);
  }, 150_000);
});
