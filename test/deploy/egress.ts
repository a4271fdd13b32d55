import { selectorMatches, type K8sObject } from './manifest-checks.js';

/**
 * What each workload of a rendered overlay may connect to under its NetworkPolicies, in words, so a test can
 * compare it with a table: `dns 53/TCP,53/UDP`, `nats 4222/TCP` (a workload of the overlay, by its pods' labels),
 * `internet 80/TCP,443/TCP` (every address but the private, loopback, link-local and CGNAT ranges),
 * `any address 5432/TCP`, or `everything` when no policy restricts the workload's egress.
 */

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface EgressRule {
  to?: Peer[];
  ports?: { protocol?: string; port?: number | string }[];
}
interface PolicySpec {
  podSelector: Selector;
  policyTypes?: string[];
  egress?: EgressRule[];
}

/** Ranges a webhook must never reach: private, loopback, link-local (cloud metadata), CGNAT; IPv6 alike. */
export const NON_PUBLIC = {
  '0.0.0.0/0': [
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '100.64.0.0/10',
  ],
  '::/0': ['::1/128', 'fc00::/7', 'fe80::/10', '::ffff:0:0/96'],
} as Record<string, string[]>;

const isEmpty = (s: Selector | undefined) =>
  !!s && !Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length;

/** Every Deployment, StatefulSet and Job with the labels of its pods. */
export function podsOf(objects: K8sObject[]): { name: string; labels: Record<string, string> }[] {
  return objects
    .filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))
    .map((o) => ({
      name: o.metadata.name,
      labels:
        (o.spec as { template: { metadata?: { labels?: Record<string, string> } } }).template.metadata
          ?.labels ?? {},
    }));
}

function destination(peer: Peer, pods: ReturnType<typeof podsOf>): string {
  if (peer.ipBlock) {
    const { cidr, except = [] } = peer.ipBlock;
    const nonPublic = NON_PUBLIC[cidr];
    if (nonPublic && nonPublic.every((range) => except.includes(range))) return 'internet';
    return except.length ? `${cidr} except ${except.join(',')}` : cidr === '0.0.0.0/0' ? 'any address' : cidr;
  }
  const ns = peer.namespaceSelector;
  if (
    ns?.matchLabels?.['kubernetes.io/metadata.name'] === 'kube-system' &&
    !(ns.matchExpressions ?? []).length
  ) {
    if (peer.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns') return 'dns';
    return 'kube-system';
  }
  if (ns) {
    const where = isEmpty(ns) ? 'every namespace' : `namespaces ${JSON.stringify(ns)}`;
    // Both selectors in one peer: only those pods of those namespaces.
    return peer.podSelector && !isEmpty(peer.podSelector)
      ? `${where} pods ${JSON.stringify(peer.podSelector)}`
      : where;
  }
  const matched = pods.filter((p) => selectorMatches(peer.podSelector, p.labels)).map((p) => p.name);
  return matched.length ? matched.sort().join('+') : `no pod (${JSON.stringify(peer.podSelector)})`;
}

/** Workload name → what it may reach, sorted. */
export function egressSummary(objects: K8sObject[]): Record<string, string[]> {
  const pods = podsOf(objects);
  const policies = objects
    .filter((o) => o.kind === 'NetworkPolicy')
    .map((o) => o.spec as PolicySpec)
    .filter((s) => (s.policyTypes ?? []).includes('Egress'));
  const summary: Record<string, string[]> = {};
  for (const pod of pods) {
    const selecting = policies.filter((s) => selectorMatches(s.podSelector, pod.labels));
    if (!selecting.length) {
      summary[pod.name] = ['everything'];
      continue;
    }
    const lines = new Set<string>();
    for (const rule of selecting.flatMap((s) => s.egress ?? [])) {
      const ports = (rule.ports ?? [])
        .map((p) => ({ port: Number(p.port), text: `${p.port}/${p.protocol ?? 'TCP'}` }))
        .sort((a, b) => a.port - b.port || a.text.localeCompare(b.text))
        .map((p) => p.text);
      const where = rule.to?.length ? rule.to.map((peer) => destination(peer, pods)) : ['any address'];
      for (const dest of new Set(where)) lines.add(`${dest} ${ports.length ? ports.join(',') : 'all ports'}`);
    }
    summary[pod.name] = [...lines].sort();
  }
  return summary;
}
