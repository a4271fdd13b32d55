import { KubeConfig, type V1ContainerStatus } from '@kubernetes/client-node';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeKubeNodes } from './fake-kube-nodes.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string }[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string;
  body: unknown;
}

type Kind = 'pods' | 'secrets';

/**
 * A fake Kubernetes API server for the Kubernetes driver's tests: pods and secrets of namespaces, in memory. It
 * answers like the real one (201 on create with uid, resourceVersion and a Pending status for pods; 404/409 with a
 * Status object; label selectors `k=v,...` on lists; JSON patches `add` on PATCH), deletes the objects a deleted
 * pod owns (ownerReferences, as the garbage collector does) and records every request. A pod's container log
 * (`print`) is served like the kubelet's: refused (400) until the container started, `timestamps`, `sinceTime`,
 * `follow` (open until `endLog`). The cluster's nodes, their list and watch: `nodes` (fake-kube-nodes.ts).
 */
export class FakeKubeApi {
  readonly requests: RecordedRequest[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private version = 1;
  private server: Server | null = null;
  url = '';
  /** Answer every PATCH with 403 (a Role without the verb). */
  forbidPatches = false;
  private readonly logLines = new Map<string, { time: string; text: string }[]>();
  private readonly logFollowers = new Map<string, Set<ServerResponse>>();
  private stamp = 0;
  /** The cluster's nodes (list, watch). */
  readonly nodes = new FakeKubeNodes(() => ++this.version);

  constructor(private readonly namespace: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A client configuration pointing at this server (started). */
  kubeConfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'tester' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'tester' }],
      currentContext: 'fake',
    });
    return config;
  }

  async stop(): Promise<void> {
    this.nodes.dropWatches();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  get(kind: Kind, name: string): KubeObject | undefined {
    return this.objects.get(`${kind}/${this.namespace}/${name}`);
  }

  pod(name: string): KubeObject | undefined {
    return this.get('pods', name);
  }

  names(kind: Kind): string[] {
    return [...this.objects.keys()].filter((k) => k.startsWith(`${kind}/`)).map((k) => k.split('/')[2]);
  }

  /** What the kubelet would write: the pod's phase and its container's state. */
  setStatus(name: string, phase: string, container?: Partial<V1ContainerStatus>): void {
    const pod = this.pod(name);
    if (!pod) throw new Error(`no pod ${name}`);
    pod.status = {
      phase,
      ...(container
        ? {
            containerStatuses: [
              { name: 'pod', image: 'x', imageID: '', restartCount: 0, ready: false, ...container },
            ],
          }
        : {}),
    };
    pod.metadata.resourceVersion = String(++this.version);
  }

  /** What the container prints: one line, stamped now (nanosecond timestamps, increasing), to every follower. */
  print(name: string, text: string): void {
    const time = `${new Date().toISOString().slice(0, 23)}${String(++this.stamp % 1e6).padStart(6, '0')}Z`;
    this.logLines.set(name, [...(this.logLines.get(name) ?? []), { time, text }]);
    for (const res of this.logFollowers.get(name) ?? []) res.write(`${time} ${text}\n`);
  }

  /** Open log streams of the pod end (the container ended, or the connection broke). */
  endLog(name: string): void {
    for (const res of this.logFollowers.get(name) ?? []) res.end();
    this.logFollowers.delete(name);
  }

  creates(kind: Kind): KubeObject[] {
    return this.requests
      .filter((r) => r.method === 'POST' && r.path === `/api/v1/namespaces/${this.namespace}/${kind}`)
      .map((r) => r.body as KubeObject);
  }

  deletes(kind: Kind): string[] {
    return this.requests
      .filter(
        (r) => r.method === 'DELETE' && r.path.startsWith(`/api/v1/namespaces/${this.namespace}/${kind}/`),
      )
      .map((r) => r.path.split('/').pop() as string);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as unknown) : null;
      const method = req.method ?? 'GET';
      const contentType = req.headers['content-type'] ?? '';
      this.requests.push({ method, path: url.pathname, query: url.searchParams, contentType, body });
      if (this.nodes.handle(url.pathname, url.searchParams, res, this.version)) return;
      const log = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(url.pathname);
      if (log) return this.log(res, log[2], url.searchParams);
      const match = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|secrets)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match) {
        return this.send(res, 404, this.status(404, 'NotFound', `the server could not find ${url.pathname}`));
      }
      const [, namespace, kind, name] = match;
      const key = (n: string): string => `${kind}/${namespace}/${n}`;
      if (!name && method === 'GET') return this.list(res, kind, namespace, url.searchParams);
      if (!name && method === 'POST' && body) return this.create(res, kind, namespace, body as KubeObject);
      const existing = name ? this.objects.get(key(name)) : undefined;
      if (!name || !existing) {
        return this.send(res, 404, this.status(404, 'NotFound', `${kind} "${name ?? ''}" not found`));
      }
      if (method === 'GET') return this.send(res, 200, existing);
      if (method === 'DELETE') {
        this.objects.delete(key(name));
        this.collectGarbage(existing.metadata.uid);
        return this.send(res, 200, existing);
      }
      if (method === 'PATCH' && this.forbidPatches) {
        return this.send(res, 403, this.status(403, 'Forbidden', `cannot patch ${kind} "${name}"`));
      }
      if (method === 'PATCH' && contentType.startsWith('application/json-patch+json')) {
        for (const op of body as { op: string; path: string; value: unknown }[]) {
          const field = /^\/metadata\/([A-Za-z]+)$/.exec(op.path)?.[1];
          if (op.op !== 'add' || !field) {
            return this.send(
              res,
              422,
              this.status(422, 'Invalid', `unsupported patch ${JSON.stringify(op)}`),
            );
          }
          existing.metadata[field] = op.value;
        }
        existing.metadata.resourceVersion = String(++this.version);
        return this.send(res, 200, existing);
      }
      return this.send(res, 405, this.status(405, 'MethodNotAllowed', `${method} is not supported`));
    });
  }

  private log(res: ServerResponse, name: string, query: URLSearchParams): void {
    const phase = (this.pod(name)?.status as { phase?: string } | undefined)?.phase;
    if (!phase) return this.send(res, 404, this.status(404, 'NotFound', `pods "${name}" not found`));
    if (phase === 'Pending') {
      return this.send(
        res,
        400,
        this.status(400, 'BadRequest', `container "pod" in pod "${name}" is waiting to start`),
      );
    }
    const since = query.get('sinceTime');
    const stamped = query.get('timestamps') === 'true';
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (const { time, text } of this.logLines.get(name) ?? []) {
      if (!since || time >= since) res.write(stamped ? `${time} ${text}\n` : `${text}\n`);
    }
    if (query.get('follow') !== 'true' || phase !== 'Running') return void res.end();
    const followers = this.logFollowers.get(name) ?? new Set<ServerResponse>();
    this.logFollowers.set(name, followers.add(res));
    res.on('close', () => followers.delete(res)); // the client went away (req's close means its body was read)
  }

  private list(res: ServerResponse, kind: string, namespace: string, query: URLSearchParams): void {
    const wanted = (query.get('labelSelector') ?? '')
      .split(',')
      .filter(Boolean)
      .map((term) => term.split('='));
    const items = [...this.objects.entries()]
      .filter(([k]) => k.startsWith(`${kind}/${namespace}/`))
      .map(([, o]) => o)
      .filter((o) => wanted.every(([k, v]) => o.metadata.labels?.[k] === v));
    this.send(res, 200, {
      apiVersion: 'v1',
      kind: `${kind === 'pods' ? 'Pod' : 'Secret'}List`,
      metadata: { resourceVersion: String(this.version) },
      items,
    });
  }

  private create(res: ServerResponse, kind: string, namespace: string, body: KubeObject): void {
    const key = `${kind}/${namespace}/${body.metadata.name}`;
    if (this.objects.has(key)) {
      return this.send(
        res,
        409,
        this.status(409, 'AlreadyExists', `${kind} "${body.metadata.name}" already exists`),
      );
    }
    const stored: KubeObject = {
      ...body,
      metadata: {
        ...body.metadata,
        namespace,
        uid: `uid-${++this.version}`,
        resourceVersion: String(this.version),
        creationTimestamp: new Date().toISOString(),
      },
      ...(kind === 'pods' ? { status: { phase: 'Pending' } } : {}),
    };
    this.objects.set(key, stored);
    this.send(res, 201, stored);
  }

  /** The garbage collector: objects owned by a deleted object go with it. */
  private collectGarbage(uid: string | undefined): void {
    if (!uid) return;
    for (const [key, object] of [...this.objects]) {
      if (object.metadata.ownerReferences?.some((owner) => owner.uid === uid)) {
        this.objects.delete(key);
        this.collectGarbage(object.metadata.uid);
      }
    }
  }

  private status(code: number, reason: string, message: string): object {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  }

  private send(res: ServerResponse, code: number, body: object): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
