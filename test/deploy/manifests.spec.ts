import { beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { loadCheckContext } from './context.js';
import { type CheckContext, type K8sObject, checkManifests, formatFindings } from './manifest-checks.js';
import { findRenderer, prodSecretFiles, renderOverlay } from './render.js';
import { validateSchemas } from './schemas.js';
import { unknownFields } from './strict.js';

const DEPLOY = join(ROOT, 'deploy');
const OVERLAYS = readdirSync(join(DEPLOY, 'overlays')).sort();

function render(overlay: string): K8sObject[] {
  return renderOverlay(findRenderer(), DEPLOY, overlay, overlay === 'prod' ? prodSecretFiles(DEPLOY) : {});
}

describe('deploy/ manifests', () => {
  let ctx: CheckContext;
  const rendered = new Map<string, K8sObject[]>();
  const objects = (overlay: string) => rendered.get(overlay) ?? [];
  const kinds = (overlay: string) => objects(overlay).map((o) => `${o.kind}/${o.metadata.name}`);

  beforeAll(async () => {
    ctx = await loadCheckContext(ROOT);
    for (const overlay of OVERLAYS) rendered.set(overlay, render(overlay));
  });

  it('has the overlays dev and prod', () => {
    expect(OVERLAYS).toEqual(['dev', 'prod']);
  });

  it.each(OVERLAYS)('%s renders every app, NATS and the migration Job', (overlay) => {
    for (const app of ctx.apps) {
      expect(kinds(overlay)).toEqual(
        expect.arrayContaining([`Deployment/${app.name}`, `Service/${app.name}`]),
      );
    }
    expect(kinds(overlay)).toEqual(
      expect.arrayContaining(['StatefulSet/nats', 'Job/gpucp-migrate', 'HorizontalPodAutoscaler/gateway']),
    );
    expect(objects(overlay).every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'gpucp')).toBe(
      true,
    );
  });

  it.each(OVERLAYS)('%s validates against the Kubernetes schemas', async (overlay) => {
    const findings = [...(await validateSchemas(objects(overlay))), ...unknownFields(objects(overlay))];
    expect(formatFindings(findings)).toBe('');
  });

  it.each(OVERLAYS)('%s passes the manifest checks (config, ports, probes, security, network)', (overlay) => {
    expect(formatFindings(checkManifests(objects(overlay), ctx))).toBe('');
  });

  it('runs NATS as one server in dev and as a three-server JetStream cluster in prod, streams on three replicas', () => {
    const nats = (overlay: string) => {
      const sts = objects(overlay).find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'nats')!;
      const spec = sts.spec as {
        replicas: number;
        template: { spec: { containers: { args: string[]; ports: { containerPort: number }[] }[] } };
      };
      const config = objects(overlay).find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('gpucp-config'),
      )!;
      return {
        replicas: spec.replicas,
        args: spec.template.spec.containers[0].args,
        ports: spec.template.spec.containers[0].ports.map((p) => p.containerPort),
        streamReplicas: (config.data as Record<string, string>).NATS_STREAM_REPLICAS ?? '1',
        budget: kinds(overlay).includes('PodDisruptionBudget/nats'),
      };
    };
    expect(nats('dev')).toMatchObject({
      replicas: 1,
      ports: [4222, 8222],
      streamReplicas: '1',
      budget: false,
    });
    expect(nats('prod')).toMatchObject({
      replicas: 3,
      ports: [4222, 8222, 6222],
      streamReplicas: '3',
      budget: true,
      args: expect.arrayContaining([
        '--cluster_name=gpucp',
        '--routes=nats://nats-0.nats-headless:6222,nats://nats-1.nats-headless:6222,nats://nats-2.nats-headless:6222',
      ]) as unknown,
    });
  });

  it('runs two replicas of every app in prod, each with a disruption budget and spread over nodes', () => {
    const story = (overlay: string) =>
      Object.fromEntries(
        ctx.apps.map((app) => {
          const deployment = objects(overlay).find(
            (o) => o.kind === 'Deployment' && o.metadata.name === app.name,
          )!;
          const spec = deployment.spec as {
            replicas: number;
            template: { spec: { affinity?: { podAntiAffinity?: unknown } } };
          };
          const hpa = objects(overlay).find(
            (o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === app.name,
          );
          const budget = objects(overlay).find(
            (o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === app.name,
          );
          return [
            app.name,
            {
              replicas: (hpa?.spec as { minReplicas?: number } | undefined)?.minReplicas ?? spec.replicas,
              budget: (budget?.spec as { minAvailable?: number } | undefined)?.minAvailable ?? 0,
              spread: spec.template.spec.affinity?.podAntiAffinity !== undefined,
            },
          ];
        }),
      );
    for (const [app, seen] of Object.entries(story('prod'))) {
      expect({ app, ...seen }).toEqual({ app, replicas: 2, budget: 1, spread: true });
    }
    // dev stays small: one of each but the gateway's HPA floor.
    expect(story('dev')['pod-lifecycle'].replicas).toBe(1);
  });

  it('runs Postgres in the cluster in dev and uses the external one of DATABASE_URL in prod', () => {
    expect(kinds('dev')).toContain('StatefulSet/postgres');
    // Nothing of the in-cluster component; only the egress rule to the external server.
    expect(kinds('prod').filter((k) => /postgres/i.test(k))).toEqual([
      'NetworkPolicy/apps-to-external-postgres',
    ]);
  });

  it('exposes the gateway through an Ingress in prod', () => {
    const ingress = objects('prod').find((o) => o.kind === 'Ingress');
    expect(JSON.stringify(ingress?.spec)).toContain('"name":"gateway"');
  });
});
