import { beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { loadCheckContext } from './context.js';
import { type CheckContext, type Finding, type K8sObject, checkManifests } from './manifest-checks.js';
import { findRenderer, renderOverlay } from './render.js';
import { validateSchemas } from './schemas.js';
import { unknownFields } from './strict.js';

/** The checks themselves: a correct render passes, and each kind of breakage is reported where it is. */

interface Container {
  name: string;
  env: { name: string }[];
  readinessProbe?: { httpGet: { path: string } };
  securityContext: Record<string, unknown>;
  [field: string]: unknown;
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
}

const named = (objects: K8sObject[], kind: string, name: string): K8sObject => {
  const object = objects.find(
    (o) => o.kind === kind && (o.metadata.name === name || o.metadata.name.startsWith(`${name}-`)),
  );
  if (!object) throw new Error(`${kind}/${name} is not in the render`);
  return object;
};
const podSpec = (object: K8sObject) => (object.spec as { template: { spec: PodSpec } }).template.spec;
const firstContainer = (objects: K8sObject[], kind: string, name: string) =>
  podSpec(named(objects, kind, name)).containers[0];

async function allFindings(objects: K8sObject[], ctx: CheckContext): Promise<Finding[]> {
  return [...(await validateSchemas(objects)), ...unknownFields(objects), ...checkManifests(objects, ctx)];
}

describe('manifest checker', () => {
  let ctx: CheckContext;
  let pristine: K8sObject[];
  const broken = (mutate: (objects: K8sObject[]) => void) => {
    const objects = structuredClone(pristine);
    mutate(objects);
    return allFindings(objects, ctx);
  };

  beforeAll(async () => {
    ctx = await loadCheckContext(ROOT);
    pristine = renderOverlay(findRenderer(), join(ROOT, 'deploy'), 'dev');
  });

  it('finds nothing wrong with the dev overlay as it is', async () => {
    expect(await allFindings(pristine, ctx)).toEqual([]);
  });

  interface Expected {
    check: Finding['check'];
    object?: string;
    message: RegExp;
  }
  const cases: [string, (objects: K8sObject[]) => void, Expected][] = [
    [
      'a Service whose targetPort is not the app port',
      (objects) => {
        (
          named(objects, 'Service', 'queue-broker').spec as { ports: { targetPort: unknown }[] }
        ).ports[0].targetPort = 9999;
      },
      {
        check: 'ports',
        object: 'Service/queue-broker',
        message: /targetPort 9999 .* not queue-broker's HTTP_PORT 8083/,
      },
    ],
    [
      'a required variable that is not provided',
      (objects) => {
        const container = firstContainer(objects, 'Deployment', 'gateway');
        container.env = container.env.filter((variable) => variable.name !== 'REGISTRY_AUTH_KEYS');
      },
      {
        check: 'config',
        object: 'Deployment/gateway gateway',
        message: /REGISTRY_AUTH_KEYS is required by gateway/,
      },
    ],
    [
      'a config value the app would reject at boot',
      (objects) => {
        (named(objects, 'ConfigMap', 'gpucp-config').data as Record<string, string>).NATS_PREFIX = 'gpu-cp';
      },
      {
        check: 'config',
        object: 'Deployment/queue-broker queue-broker',
        message: /NATS_PREFIX="gpu-cp" is rejected/,
      },
    ],
    [
      'a field value outside the schema',
      (objects) => {
        firstContainer(objects, 'Deployment', 'gateway').imagePullPolicy = 'Sometimes';
      },
      { check: 'schema', object: 'Deployment/gateway', message: /imagePullPolicy must be equal to one of/ },
    ],
    [
      'a misspelt field',
      (objects) => {
        const container = firstContainer(objects, 'Deployment', 'pod-lifecycle');
        container.readinesProbe = container.readinessProbe;
        delete container.readinessProbe;
      },
      { check: 'schema', object: 'Deployment/pod-lifecycle', message: /readinesProbe is not a field/ },
    ],
    [
      'a readiness probe on a path the app does not serve',
      (objects) => {
        const probe = firstContainer(objects, 'Deployment', 'cluster-scheduler').readinessProbe;
        if (probe) probe.httpGet.path = '/ready';
      },
      { check: 'probes', message: /readinessProbe path \/ready is not \/readyz/ },
    ],
    [
      'a grace period shorter than the drain',
      (objects) => {
        podSpec(named(objects, 'Deployment', 'endpoint-autoscaler')).terminationGracePeriodSeconds = 10;
      },
      {
        check: 'shutdown',
        object: 'Deployment/endpoint-autoscaler',
        message: /not above preStop 5 s \+ SHUTDOWN/,
      },
    ],
    [
      'a container that may run as root',
      (objects) => {
        const spec = podSpec(named(objects, 'Deployment', 'gateway')) as PodSpec & {
          securityContext?: object;
        };
        delete spec.securityContext;
      },
      { check: 'security', object: 'Deployment/gateway gateway', message: /runAsNonRoot is not true/ },
    ],
    [
      'a migration Job that skips an app',
      (objects) => {
        const container = firstContainer(objects, 'Job', 'gpucp-migrate') as Container & {
          command: string[];
        };
        container.command = container.command.map((part) => part.replace(' queue-broker', ''));
      },
      {
        check: 'migration',
        object: 'Job/gpucp-migrate',
        message: /does not run dist\/apps\/queue-broker\/migrate.mjs/,
      },
    ],
    [
      'NATS reachable from outside the apps',
      (objects) => {
        const spec = named(objects, 'NetworkPolicy', 'nats-from-apps').spec as {
          ingress: { from?: unknown }[];
        };
        delete spec.ingress[0].from;
      },
      { check: 'network', object: 'NetworkPolicy/nats-from-apps', message: /reach StatefulSet\/nats/ },
    ],
    [
      "the gateway's /metrics port open to outside the cluster",
      (objects) => {
        const spec = named(objects, 'NetworkPolicy', 'gateway-from-anywhere').spec as {
          ingress: { ports: { protocol: string; port: string }[] }[];
        };
        spec.ingress[0].ports.push({ protocol: 'TCP', port: 'metrics' });
      },
      {
        check: 'network',
        object: 'NetworkPolicy/gateway-from-anywhere',
        message: /outside reach the \/metrics port of Deployment\/gateway/,
      },
    ],
    [
      'a metrics port that is not METRICS_PORT',
      (objects) => {
        const container = firstContainer(objects, 'Deployment', 'pod-lifecycle') as Container & {
          ports: { name: string; containerPort: number }[];
        };
        container.ports = container.ports.map((p) =>
          p.name === 'metrics' ? { ...p, containerPort: 9999 } : p,
        );
      },
      { check: 'ports', message: /METRICS_PORT 9090 but the container's port "metrics" is 9999/ },
    ],
    [
      'a Service exposing /metrics',
      (objects) => {
        (
          named(objects, 'Service', 'gateway').spec as {
            ports: { name: string; port: number; targetPort: string }[];
          }
        ).ports.push({ name: 'metrics', port: 9090, targetPort: 'metrics' });
      },
      {
        check: 'ports',
        object: 'Service/gateway',
        message: /targetPort metrics .* not gateway's HTTP_PORT 8080/,
      },
    ],
    [
      'a NATS server that cannot sync every write',
      (objects) => {
        firstContainer(objects, 'StatefulSet', 'nats').image = 'nats:2.9.10';
      },
      { check: 'nats', message: /nats:2.9.10: JetStream needs nats-server >= 2.10/ },
    ],
    [
      'a reference to a ConfigMap that does not exist',
      (objects) => {
        const configMap = named(objects, 'ConfigMap', 'gpucp-config');
        configMap.metadata.name = 'renamed';
      },
      {
        check: 'references',
        message: /refers to ConfigMap "gpucp-config-\w+", which the manifests do not define/,
      },
    ],
  ];

  it.each(cases)('reports %s', async (_name, mutate, expected) => {
    const findings = await broken(mutate);
    expect(findings).toContainEqual(
      expect.objectContaining({ ...expected, message: expect.stringMatching(expected.message) }),
    );
  });
});
