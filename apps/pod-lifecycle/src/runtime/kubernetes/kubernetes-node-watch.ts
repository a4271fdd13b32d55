import type { V1Node } from '@kubernetes/client-node';
import { DomainError, ErrorCode, deriveId, type HostView } from '@app/contracts';
import {
  afterStep,
  appliedFromView,
  planNode,
  planRemoval,
  type AppliedHost,
  type NodeStep,
} from './kubernetes-node-plan.js';
import { gpuTypeResolver, nodeHost, type GpuTypeOf, type NodeHostOptions } from './kubernetes-node.js';

/** The nodes of the cluster: a list with its resourceVersion, and a watch from one. */
export interface NodeSource {
  list(): Promise<{ items: V1Node[]; resourceVersion: string }>;
  /**
   * Watches from `resourceVersion` (bookmarks asked for); `onEvent` gets each event, `onEnd` is called once when the
   * stream ends: no error for a clean end, else why (an HTTP status such as 410 as `statusCode`).
   */
  watch(
    resourceVersion: string,
    onEvent: (type: string, object: unknown) => void,
    onEnd: (error: unknown) => void,
  ): Promise<{ abort(): void }>;
}

/** The scheduler's fleet, as the node watch uses it. */
export interface FleetPort {
  execute(step: NodeStep, commandId: string): Promise<unknown>;
  /**
   * Resolves once the scheduler has applied every fleet command recorded so far; rejects while it has not (it is
   * away, or still applying what was recorded while it was).
   */
  settled(): Promise<void>;
  /** Every host registered by Kubernetes (GONE ones too). */
  kubernetesHosts(): Promise<HostView[]>;
  gpuTypes(): Promise<{ id: string; displayName: string }[]>;
}

export interface NodeWatchOptions extends NodeHostOptions {
  productMap: Record<string, string>;
  /** Pause after a failed list or watch, and after a watch that ended at once, in ms. */
  retryMs: number;
  log: (level: 'log' | 'warn', line: string) => void;
}

interface WatchEnd {
  relist: boolean;
  resourceVersion: string;
}

/**
 * Keeps the scheduler's Kubernetes hosts in line with the cluster's nodes (docs/adr/0039): lists the nodes, then
 * watches them from the list's resourceVersion. Each node event is mapped to the host it should be
 * (kubernetes-node.ts) and compared with what the fleet holds (from `fleet.qry.list-hosts` at each list, then from
 * the commands it applied); only the commands that differ are issued, one node event at a time, with ids derived
 * from the node's uid and resourceVersion, so an event seen twice is applied once. On 410 Gone, an ERROR event or
 * a broken stream it lists again: hosts whose node is gone are removed, every node is compared anew, so a watch
 * that fell behind (or a scheduler restarted meanwhile) converges to the nodes' state. A list first waits until
 * the scheduler has applied every fleet command recorded before it (commands left unapplied while it was away). A clean end of the stream
 * (the server's timeout) watches again from the last resourceVersion seen (bookmarks keep it fresh).
 */
export class KubernetesNodeWatch {
  private applied = new Map<string, AppliedHost>();
  /** Node name → uid, of the nodes that exist. */
  private nodes = new Map<string, string>();
  private gpuTypeOf: GpuTypeOf = () => null;
  /** Node name → the last reason it was skipped for (logged once). */
  private readonly skipped = new Map<string, string>();
  /** Commands refused, by their payload: not issued again until the next list. */
  private readonly refused = new Set<string>();
  private running: Promise<void> | null = null;
  private stopped = true;
  private stream: { abort(): void } | null = null;
  private wake: (() => void) | null = null;
  /** Lists done so far (tests wait for the next one). */
  relists = 0;

  constructor(
    private readonly source: NodeSource,
    private readonly fleet: FleetPort,
    private readonly options: NodeWatchOptions,
  ) {}

  get active(): boolean {
    return this.running !== null;
  }

  start(): void {
    if (this.running) return;
    this.stopped = false;
    this.running = this.loop().finally(() => (this.running = null));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stream?.abort();
    this.wake?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    let resourceVersion: string | null = null;
    while (!this.stopped) {
      try {
        resourceVersion ??= await this.relist();
        const started = Date.now();
        const end = await this.watchFrom(resourceVersion);
        resourceVersion = end.relist ? null : end.resourceVersion;
        if (!end.relist && Date.now() - started < 1000) await this.pause();
      } catch (error) {
        if (this.stopped) break;
        this.options.log('warn', `node watch: ${(error as Error).message}; listing again`);
        resourceVersion = null;
        await this.pause();
      }
    }
  }

  /** Lists nodes and hosts, brings every host in line; resolves with the list's resourceVersion. */
  private async relist(): Promise<string> {
    // A command issued while the scheduler was away (by this watch, or by the replica that led it before) is
    // recorded and applied when the scheduler is back, maybe after it already answers queries: the hosts are read
    // only once it is applied, else it would land after the comparison and undo what the node says now.
    await this.fleet.settled();
    const [list, hosts, types] = await Promise.all([
      this.source.list(),
      this.fleet.kubernetesHosts(),
      this.fleet.gpuTypes(),
    ]);
    this.gpuTypeOf = gpuTypeResolver(this.options.productMap, types);
    this.applied = new Map(hosts.map((h) => [h.id, appliedFromView(h)]));
    this.nodes = new Map(list.items.map((n) => [n.metadata?.name ?? '', n.metadata?.uid ?? '']));
    this.refused.clear();
    for (const node of list.items) await this.applyNode(node);
    for (const hostId of [...this.applied.keys()]) {
      if (this.nodes.has(hostId)) continue;
      await this.run(
        hostId,
        planRemoval(hostId, this.applied.get(hostId)),
        `kube-node-gone/${hostId}/${list.resourceVersion}`,
      );
    }
    this.relists += 1;
    this.options.log(
      'log',
      `node watch: listed ${list.items.length} nodes at resourceVersion ${list.resourceVersion}`,
    );
    return list.resourceVersion;
  }

  private watchFrom(resourceVersion: string): Promise<WatchEnd> {
    return new Promise<WatchEnd>((resolve, reject) => {
      const end: WatchEnd = { relist: false, resourceVersion };
      let chain = Promise.resolve();
      const onEvent = (type: string, object: unknown): void => {
        chain = chain
          .then(() => this.onEvent(type, object, end))
          .catch((error: unknown) => {
            // The scheduler could not be reached: list again (after a pause) rather than lose the change.
            this.options.log('warn', `node watch: ${(error as Error).message}; listing again`);
            end.relist = true;
            this.stream?.abort();
          });
      };
      const onEnd = (error: unknown): void => {
        this.stream = null;
        if (error && !this.stopped) {
          const status = (error as { statusCode?: number }).statusCode;
          this.options.log(
            'warn',
            `node watch ended${status ? ` (HTTP ${status})` : ''}: ${(error as Error).message ?? error}`,
          );
          end.relist = true;
        }
        void chain.then(() => resolve(end), reject);
      };
      this.source.watch(resourceVersion, onEvent, onEnd).then((stream) => {
        this.stream = stream;
        if (this.stopped) stream.abort();
      }, reject);
    });
  }

  private async onEvent(type: string, object: unknown, end: WatchEnd): Promise<void> {
    if (end.relist) return;
    if (type === 'ERROR') {
      // 410 Gone (the resourceVersion is too old) or another failure told in the stream: list again.
      const status = object as { code?: number; message?: string };
      this.options.log(
        'warn',
        `node watch: ${status.code ?? ''} ${status.message ?? 'error event'}; listing again`,
      );
      end.relist = true;
      this.stream?.abort();
      return;
    }
    const node = object as V1Node;
    const rv = node.metadata?.resourceVersion;
    if (rv) end.resourceVersion = rv;
    if (type === 'BOOKMARK') return;
    const name = node.metadata?.name ?? '';
    const uid = node.metadata?.uid ?? '';
    if (type === 'DELETED') {
      this.nodes.delete(name);
      this.skipped.delete(name);
      await this.run(name, planRemoval(name, this.applied.get(name)), `kube-node/${uid}/${rv}`);
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED') return;
    this.nodes.set(name, uid);
    await this.applyNode(node);
  }

  private async applyNode(node: V1Node): Promise<void> {
    const name = node.metadata?.name ?? '';
    const mapped = nodeHost(node, this.options, this.gpuTypeOf);
    if ('skipped' in mapped) {
      if (this.skipped.get(name) !== mapped.skipped) {
        this.skipped.set(name, mapped.skipped);
        this.options.log('warn', `node ${name} is not a host of the fleet: ${mapped.skipped}`);
      }
      return;
    }
    this.skipped.delete(name);
    const { uid, resourceVersion } = node.metadata ?? {};
    const steps = planNode(mapped.host, this.applied.get(name));
    await this.run(name, steps, `kube-node/${uid}/${resourceVersion}`);
  }

  /** Issues the steps in order, each with an id derived from `base`; stops at the first refused. */
  private async run(hostId: string, steps: NodeStep[], base: string): Promise<void> {
    for (const step of steps) {
      const key = `${step.subject}:${JSON.stringify(step.payload)}`;
      if (this.refused.has(key)) return;
      try {
        await this.fleet.execute(step, deriveId(base, step.part));
      } catch (error) {
        if (!refusal(error)) throw error;
        this.refused.add(key);
        this.options.log(
          'warn',
          `node watch: ${step.subject} of host ${hostId} failed: ${(error as Error).message}`,
        );
        return;
      }
      this.applied.set(hostId, afterStep(this.applied.get(hostId), step));
    }
  }

  private pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.options.retryMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).finally(() => (this.wake = null));
  }
}

/** A command the scheduler refused (unknown data center, say), not one it could not be asked. */
function refusal(error: unknown): boolean {
  return (
    error instanceof DomainError &&
    error.code !== ErrorCode.OwnerUnavailable &&
    error.code !== ErrorCode.DependencyUnavailable &&
    error.code !== ErrorCode.UpstreamTimeout
  );
}
