import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { loadCheckContext } from './context.js';
import { type CheckContext, type K8sObject, checkManifests, formatFindings } from './manifest-checks.js';
import { findRenderer, renderOverlay, secretsEnvFromExample } from './render.js';
import { validateSchemas } from './schemas.js';
import { unknownFields } from './strict.js';

const DEPLOY = join(ROOT, 'deploy');
const OVERLAYS = readdirSync(join(DEPLOY, 'overlays')).sort();

/** The values an operator would put where secrets.env.example leaves them empty. */
const PROD_SECRETS = { REGISTRY_AUTH_KEYS: `k1:${randomBytes(32).toString('base64')}` };

function render(overlay: string): K8sObject[] {
  const extra: Record<string, string> =
    overlay === 'prod'
      ? {
          'overlays/prod/secrets.env': secretsEnvFromExample(
            join(DEPLOY, 'overlays/prod/secrets.env.example'),
            PROD_SECRETS,
          ),
        }
      : {};
  return renderOverlay(findRenderer(), DEPLOY, overlay, extra);
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

  it('runs Postgres in the cluster in dev and uses the external one of DATABASE_URL in prod', () => {
    expect(kinds('dev')).toContain('StatefulSet/postgres');
    expect(kinds('prod').filter((k) => /postgres/i.test(k))).toEqual([]);
  });

  it('exposes the gateway through an Ingress in prod', () => {
    const ingress = objects('prod').find((o) => o.kind === 'Ingress');
    expect(JSON.stringify(ingress?.spec)).toContain('"name":"gateway"');
  });
});
