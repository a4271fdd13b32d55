import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/paths.js';
import { formatFindings, type K8sObject } from './manifest-checks.js';
import { findRenderer, parseManifests, prodSecretFiles, renderOverlay } from './render.js';
import { validateSchemas } from './schemas.js';
import { unknownFields } from './strict.js';

const DEPLOY = join(ROOT, 'deploy');

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The core/v1 calls the Kubernetes driver makes, read from its source: `<verb>Namespaced<Kind>`, and its logs'. */
function driverCalls(): { verb: string; resource: string }[] {
  const source = readFileSync(
    join(ROOT, 'apps/pod-lifecycle/src/runtime/kubernetes/kubernetes.driver.ts'),
    'utf8',
  );
  const calls = [
    ...source.matchAll(/\.(create|list|delete|read|patch|replace)Namespaced([A-Z][a-zA-Z]*)\(/g),
  ];
  const verbs: Record<string, string> = {
    create: 'create',
    list: 'list',
    delete: 'delete',
    read: 'get',
    patch: 'patch',
    replace: 'update',
  };
  const logs = readFileSync(
    join(ROOT, 'apps/pod-lifecycle/src/runtime/kubernetes/kubernetes-logs.ts'),
    'utf8',
  );
  return [
    ...calls.map(([, verb, kind]) => ({ verb: verbs[verb], resource: `${kind.toLowerCase()}s` })),
    // The client's Log class: GET .../pods/{name}/log.
    ...(/new Log\(/.test(logs) ? [{ verb: 'get', resource: 'pods/log' }] : []),
  ];
}

/** The Kubernetes runtime driver's namespace and Role (deploy/runtime/kubernetes) and the prod overlay using it. */
describe('deploy/runtime/kubernetes', () => {
  let objects: K8sObject[];
  let prod: K8sObject[];

  beforeAll(() => {
    objects = parseManifests(findRenderer().render(join(DEPLOY, 'runtime/kubernetes')));
    prod = renderOverlay(findRenderer(), DEPLOY, 'prod', prodSecretFiles(DEPLOY));
  });

  it('validates against the Kubernetes schemas', async () => {
    const findings = [...(await validateSchemas(objects)), ...unknownFields(objects)];
    expect(formatFindings(findings)).toBe('');
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'ClusterRole/gpucp-runtime-nodes',
      'ClusterRoleBinding/gpucp-runtime-nodes',
      'Namespace/gpucp-pods',
      'NetworkPolicy/lb-workers-from-gateway',
      'Role/gpucp-runtime',
      'RoleBinding/gpucp-runtime',
    ]);
  });

  it('lets pod-lifecycle make every call the driver makes, in the namespace the prod overlay configures', () => {
    const config = prod.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('gpucp-config'))!;
    const data = config.data as Record<string, string>;
    expect(data.RUNTIME_DRIVER).toBe('kubernetes');
    const role = objects.find((o) => o.kind === 'Role')!;
    expect(role.metadata.namespace).toBe(data.KUBE_NAMESPACE);
    const rules = role.rules as Rule[];
    const calls = driverCalls();
    expect(calls.length).toBeGreaterThanOrEqual(5);
    for (const { verb, resource } of calls) {
      const allowed = rules.some(
        (r) => r.apiGroups.includes('') && r.resources.includes(resource) && r.verbs.includes(verb),
      );
      expect(`${verb} ${resource}: ${allowed ? 'allowed' : 'denied'}`).toBe(`${verb} ${resource}: allowed`);
    }
    // Nothing beyond pods, their logs and secrets.
    expect(new Set(rules.flatMap((r) => r.resources))).toEqual(new Set(['pods', 'pods/log', 'secrets']));

    const binding = objects.find((o) => o.kind === 'RoleBinding')!;
    expect(binding.metadata.namespace).toBe(data.KUBE_NAMESPACE);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'pod-lifecycle', namespace: 'gpucp' }]);
    expect(
      prod.some(
        (o) =>
          o.kind === 'ServiceAccount' &&
          o.metadata.name === 'pod-lifecycle' &&
          o.metadata.namespace === 'gpucp',
      ),
    ).toBe(true);
    // The token the driver authenticates with is mounted.
    const deployment = prod.find((o) => o.kind === 'Deployment' && o.metadata.name === 'pod-lifecycle')!;
    expect(
      (deployment.spec as { template: { spec: { automountServiceAccountToken: boolean } } }).template.spec
        .automountServiceAccountToken,
    ).toBe(true);
  });

  it("lets pod-lifecycle list and watch nodes (the node watch's calls), and nothing else cluster-wide", () => {
    const source = readFileSync(
      join(ROOT, 'apps/pod-lifecycle/src/runtime/kubernetes/kubernetes-nodes.ts'),
      'utf8',
    );
    expect(source).toMatch(/\.listNode\(/);
    expect(source).toMatch(/\.watch\(\s*'\/api\/v1\/nodes'/);
    const role = objects.find((o) => o.kind === 'ClusterRole')!;
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] }]);
    const binding = objects.find((o) => o.kind === 'ClusterRoleBinding')!;
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'gpucp-runtime-nodes',
    });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'pod-lifecycle', namespace: 'gpucp' }]);
  });

  it('opens the load-balancing workers to the gateway and pod-lifecycle of namespace gpucp only', () => {
    const policy = objects.find((o) => o.kind === 'NetworkPolicy')!;
    expect(policy.metadata.namespace).toBe('gpucp-pods');
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { 'gpucp.io/lb-worker': 'true' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gpucp' } },
              podSelector: {
                matchExpressions: [
                  { key: 'app.kubernetes.io/name', operator: 'In', values: ['gateway', 'pod-lifecycle'] },
                ],
              },
            },
          ],
        },
      ],
    });
  });
});
