import type { V1Node } from '@kubernetes/client-node';
import type { ServerResponse } from 'node:http';

interface NodeEvent {
  resourceVersion: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: V1Node;
}

/** A node as a test writes it: name, GPUs, labels, readiness and the rest with defaults. */
export interface FakeNode {
  name: string;
  gpus?: number;
  /** Allocatable `nvidia.com/gpu` (the device plugin's healthy GPUs); `gpus` by default. */
  allocatable?: number;
  product?: string;
  zone?: string;
  labels?: Record<string, string>;
  ready?: 'True' | 'False' | 'Unknown';
  unschedulable?: boolean;
  externalIp?: string | null;
  internalIp?: string;
  /** Extra conditions (an NVIDIA health monitor's, say). */
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

/**
 * The cluster's nodes of FakeKubeApi: `GET /api/v1/nodes` (with the list's resourceVersion) and its watch
 * (`?watch=true&resourceVersion=…`): the events after that version, then each new one as it happens, bookmarks when
 * asked, and a 410 Gone ERROR event for a version older than the kept history (`compact`), as the real API server.
 */
export class FakeKubeNodes {
  private readonly nodes = new Map<string, V1Node>();
  private readonly history: NodeEvent[] = [];
  private readonly watchers = new Set<ServerResponse>();
  /** Watches asked for so far (each with its resourceVersion). */
  readonly watches: string[] = [];
  private compactedTo = 0;
  /** Watches answered 410 Gone so far (their resourceVersion was older than the kept history). */
  expired = 0;
  /**
   * While true, open watches get no events (a stalled watch cache: the connection stays open, the client falls
   * behind); the events are still kept, for a watch from an older version. `endWatches` then lets clients resume.
   */
  held = false;

  constructor(private readonly nextVersion: () => number) {}

  /** Adds or changes a node (ADDED or MODIFIED); returns it as stored. */
  put(spec: FakeNode): V1Node {
    const existing = this.nodes.get(spec.name);
    const version = this.nextVersion();
    const gpus = spec.gpus ?? 8;
    const node: V1Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: spec.name,
        uid: existing?.metadata?.uid ?? `node-uid-${spec.name}-${version}`,
        resourceVersion: String(version),
        labels: {
          'kubernetes.io/hostname': spec.name,
          ...(spec.product === undefined ? { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' } : {}),
          ...(spec.product ? { 'nvidia.com/gpu.product': spec.product } : {}),
          'topology.kubernetes.io/zone': spec.zone ?? 'EU-RO-1',
          ...spec.labels,
        },
      },
      spec: spec.unschedulable ? { unschedulable: true } : {},
      status: {
        capacity: { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': String(gpus) },
        allocatable: { cpu: '63', memory: '500Gi', 'nvidia.com/gpu': String(spec.allocatable ?? gpus) },
        addresses: [
          { type: 'InternalIP', address: spec.internalIp ?? '10.0.0.1' },
          ...(spec.externalIp === null
            ? []
            : [{ type: 'ExternalIP', address: spec.externalIp ?? '203.0.113.1' }]),
          { type: 'Hostname', address: spec.name },
        ],
        conditions: [
          { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory' },
          {
            type: 'Ready',
            status: spec.ready ?? 'True',
            reason: (spec.ready ?? 'True') === 'True' ? 'KubeletReady' : 'NodeStatusUnknown',
            message:
              (spec.ready ?? 'True') === 'True'
                ? 'kubelet is posting ready status'
                : 'Kubelet stopped posting node status.',
          },
          ...(spec.conditions ?? []),
        ],
      },
    };
    this.nodes.set(spec.name, node);
    this.record({ resourceVersion: version, type: existing ? 'MODIFIED' : 'ADDED', object: node });
    return node;
  }

  delete(name: string): void {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    this.nodes.delete(name);
    const version = this.nextVersion();
    const object = { ...node, metadata: { ...node.metadata, resourceVersion: String(version) } };
    this.record({ resourceVersion: version, type: 'DELETED', object });
  }

  /** A BOOKMARK event on every open watch, at the latest version. */
  bookmark(): void {
    const version = this.nextVersion();
    this.send({
      type: 'BOOKMARK',
      object: { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: String(version) } },
    });
  }

  /** Open watches break (a load balancer in between dropped them). */
  dropWatches(): void {
    for (const res of this.watchers) res.destroy();
    this.watchers.clear();
  }

  /** Open watches end cleanly (the server's watch timeout): clients resume from the last version they saw. */
  endWatches(): void {
    for (const res of this.watchers) res.end();
    this.watchers.clear();
  }

  /** The history kept so far is forgotten: watches from an older version get 410 Gone. */
  compact(): void {
    this.compactedTo = this.history.at(-1)?.resourceVersion ?? 0;
    this.history.length = 0;
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  /** Answers `/api/v1/nodes[...]`; false when the path is not theirs. */
  handle(path: string, query: URLSearchParams, res: ServerResponse, currentVersion: number): boolean {
    if (path !== '/api/v1/nodes') return false;
    if (query.get('watch') === 'true' || query.get('watch') === '1') {
      this.watch(query, res);
      return true;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'NodeList',
        metadata: { resourceVersion: String(currentVersion) },
        items: [...this.nodes.values()],
      }),
    );
    return true;
  }

  private watch(query: URLSearchParams, res: ServerResponse): void {
    const from = Number(query.get('resourceVersion') ?? 0);
    this.watches.push(String(from));
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders(); // as the API server: the client's request resolves before the first event
    if (from < this.compactedTo) {
      this.expired += 1;
      const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 };
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: { ...status, message: `too old resource version: ${from}` } })}\n`,
      );
      return;
    }
    for (const { resourceVersion, ...event } of this.history) {
      if (resourceVersion > from) res.write(`${JSON.stringify(event)}\n`);
    }
    this.watchers.add(res);
    res.on('close', () => this.watchers.delete(res));
  }

  private record(event: NodeEvent): void {
    this.history.push(event);
    this.send({ type: event.type, object: event.object });
  }

  private send(event: { type: string; object: unknown }): void {
    if (this.held) return;
    for (const res of this.watchers) res.write(`${JSON.stringify(event)}\n`);
  }
}
