import type { V1ContainerStatus } from '@kubernetes/client-node';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
 * pod owns (ownerReferences, as the garbage collector does) and records every request.
 */
export class FakeKubeApi {
  readonly requests: RecordedRequest[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private version = 1;
  private server: Server | null = null;
  url = '';
  /** Answer every PATCH with 403 (a Role without the verb). */
  forbidPatches = false;

  constructor(private readonly namespace: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
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
      const match = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|secrets)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match)
        return this.send(res, 404, this.status(404, 'NotFound', `the server could not find ${url.pathname}`));
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
