import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { TemplateView } from '@app/contracts';
import type { RunningSystem } from '../support/system.js';

export interface Pod {
  id: string;
  desiredStatus: string;
  status: string | null;
}

/** The calls the load-balancing e2e tests make, as one user with a full key. */
export class LbClient {
  constructor(
    private readonly system: RunningSystem,
    readonly key: string,
  ) {}

  async graphql<T>(query: string): Promise<T> {
    const response = await fetch(`${this.system.url('gateway')}/graphql?api_key=${this.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
    if (body.errors) throw new Error(`GraphQL: ${body.errors.map((e) => e.message).join('; ')}`);
    return body.data!;
  }

  async template(imageName: string): Promise<TemplateView> {
    const response = await fetch(`${this.system.url('gateway')}/v1/templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `t-${imageName.replace(/\W/g, '-')}`, imageName, isServerless: true }),
    });
    return (await response.json()) as TemplateView;
  }

  /** Saves an endpoint (`fields` in GraphQL syntax); `id` set modifies it. */
  async saveEndpoint(templateId: string, fields: string, id?: string): Promise<string> {
    const data = await this.graphql<{ saveEndpoint: { id: string } }>(
      `mutation { saveEndpoint(input: { ${id ? `id: "${id}", ` : ''}name: "lb", templateId: "${templateId}", ` +
        `gpuIds: "AMPERE_16", ${fields} }) { id } }`,
    );
    return data.saveEndpoint.id;
  }

  async endpoint(id: string): Promise<{ aiKey: string; pods: Pod[] }> {
    const data = await this.graphql<{ myself: { endpoints: { id: string; aiKey: string; pods: Pod[] }[] } }>(
      'query { myself { endpoints { id aiKey pods { id desiredStatus status } } } }',
    );
    const found = data.myself.endpoints.find((e) => e.id === id);
    if (!found) throw new Error(`endpoint ${id} not listed`);
    return found;
  }

  /** A request to the endpoint's workers through the gateway (`replica` picks the gateway process). */
  lb(
    id: string,
    path: string,
    init: RequestInit & { key?: string | null } = {},
    replica = 0,
  ): Promise<Response> {
    const { key = this.key, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key !== null) headers.set('authorization', `Bearer ${key}`);
    return fetch(`${this.system.url('gateway', replica)}/lb/${id}${path}`, { ...rest, headers });
  }

  /** Which worker answers `GET /` now (through gateway `replica`). */
  async whoAnswers(id: string, replica = 0): Promise<string> {
    const response = await this.lb(id, '/', {}, replica);
    if (response.status !== 200) {
      throw new Error(`GET / answered ${response.status}: ${await response.text()}`);
    }
    return ((await response.json()) as { worker: string }).worker;
  }
}

/** A request with headers fetch does not let one set (Host, Upgrade, Expect). */
export function rawRequest(
  url: string,
  headers: Record<string, string>,
  { method = 'GET', body }: { method?: string; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    if (body !== undefined && headers.expect === '100-continue') {
      req.on('continue', () => req.end(body)); // as curl does: the body once the server says go on
    } else req.end(body);
  });
}

/** Kills a worker pod's process group, as a crash would (the local runtime's pid file names it). */
export function killWorker(podsDir: string, podId: string): void {
  const pid = Number(readFileSync(join(podsDir, `${podId}.pid`), 'utf8').trim());
  process.kill(-pid, 'SIGKILL');
}

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
