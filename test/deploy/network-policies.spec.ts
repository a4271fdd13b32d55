import { beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { egressSummary } from './egress.js';
import type { K8sObject } from './manifest-checks.js';
import { findRenderer, prodSecretFiles, renderOverlay } from './render.js';

const DEPLOY = join(ROOT, 'deploy');

const DNS = 'dns 53/TCP,53/UDP';
const NATS = 'nats 4222/TCP';
const APPS = ['gateway', 'cluster-scheduler', 'pod-lifecycle', 'queue-broker', 'endpoint-autoscaler'];
const allowed = (...lines: string[]) => lines.sort();

/** What every pod of the namespace may connect to: default-deny egress, then exactly these (docs/adr/0015). */
describe('deploy/ egress (NetworkPolicies)', () => {
  const rendered = new Map<string, K8sObject[]>();

  beforeAll(() => {
    rendered.set('dev', renderOverlay(findRenderer(), DEPLOY, 'dev'));
    rendered.set('prod', renderOverlay(findRenderer(), DEPLOY, 'prod', prodSecretFiles(DEPLOY)));
  });

  it.each(['dev', 'prod'])('%s denies all egress by default, for every pod', (overlay) => {
    const denyAll = rendered
      .get(overlay)!
      .filter((o) => o.kind === 'NetworkPolicy')
      .map((o) => o.spec as { podSelector: object; policyTypes?: string[]; egress?: unknown[] })
      .filter(
        (s) => JSON.stringify(s.podSelector) === '{}' && s.policyTypes?.includes('Egress') && !s.egress,
      );
    expect(denyAll).toHaveLength(1);
  });

  it('dev: DNS and NATS for the apps, the in-cluster Postgres for the apps and the Job, the internet only for the queue-broker', () => {
    const postgres = 'postgres 5432/TCP';
    expect(egressSummary(rendered.get('dev')!)).toEqual({
      ...Object.fromEntries(APPS.map((app) => [app, allowed(DNS, NATS, postgres)])),
      'queue-broker': allowed(DNS, 'internet 80/TCP,443/TCP', NATS, postgres),
      'gpucp-migrate': allowed(DNS, postgres),
      nats: [DNS],
      postgres: [DNS],
    });
  });

  it('prod: the external Postgres by address, the Kubernetes API for pod-lifecycle only, the LB workers for the gateway and pod-lifecycle', () => {
    const postgres = 'any address 5432/TCP';
    const lbWorkers =
      'namespaces {"matchLabels":{"kubernetes.io/metadata.name":"gpucp-pods"}} ' +
      'pods {"matchLabels":{"gpucp.io/lb-worker":"true"}} all ports';
    expect(egressSummary(rendered.get('prod')!)).toEqual({
      ...Object.fromEntries(APPS.map((app) => [app, allowed(DNS, NATS, postgres)])),
      gateway: allowed(DNS, NATS, postgres, lbWorkers),
      'pod-lifecycle': allowed(DNS, NATS, postgres, 'any address 443/TCP,6443/TCP', lbWorkers),
      'queue-broker': allowed(DNS, 'internet 80/TCP,443/TCP', NATS, postgres),
      'gpucp-migrate': allowed(DNS, postgres),
      // Three servers (components/nats-cluster): each routes to the others.
      nats: allowed(DNS, 'nats 6222/TCP'),
    });
  });

  it('tells a webhook rule that lets private addresses through from one that does not', () => {
    const broken = structuredClone(rendered.get('dev')!);
    const policy = broken.find((o) => o.metadata.name === 'queue-broker-to-internet')!;
    const spec = policy.spec as { egress: { to: { ipBlock: { except: string[] } }[] }[] };
    spec.egress[0].to[0].ipBlock.except = ['10.0.0.0/8'];
    expect(egressSummary(broken)['queue-broker']).toContain('0.0.0.0/0 except 10.0.0.0/8 80/TCP,443/TCP');
    const open = broken.filter((o) => o.kind !== 'NetworkPolicy');
    expect(egressSummary(open).gateway).toEqual(['everything']);
  });
});
