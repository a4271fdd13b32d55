import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import type { TemplateView } from '@app/contracts';
import { createKey, userWithKey } from '../support/accounts.js';
import { deleteStreams, startApps, type RunningSystem } from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { killWorker, LbClient, rawRequest, sleep, until } from './lb-endpoints.e2e-helpers.js';

const PING_MS = 200;

/**
 * Load-balancing endpoints end to end (docs/adr/0026): the five apps, two gateway replicas, the local runtime
 * running the example LB worker (`gpucp/lb-worker`) as real processes, a short tick, a short /ping interval.
 */
describe('load-balancing endpoints', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: LbClient;
  let template: TemplateView;
  let podsDir: string;

  const running = async (id: string) =>
    (await alice.endpoint(id)).pods.filter((p) => p.desiredStatus === 'RUNNING' && p.status === 'RUNNING');

  /** Waits until `count` different workers answer `GET /` (they are up and in every replica's rotation). */
  /**
   * Until `count` workers answer through each gateway replica: each learns of a ready worker from its own copy of
   * the announcements, so one may still route to fewer workers when the other already sees them all.
   */
  async function readyWorkers(id: string, count: number): Promise<string[]> {
    return until(`${count} ready workers`, async () => {
      const seenBy = [new Set<string>(), new Set<string>()];
      for (const [replica, seen] of seenBy.entries()) {
        for (let i = 0; i < 4 * count; i++) seen.add(await alice.whoAnswers(id, replica));
      }
      return seenBy.every((seen) => seen.size === count) ? [...seenBy[0]] : undefined;
    });
  }

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lb-e2e-'));
    podsDir = join(dir, 'pods');
    db = await createTestDatabase('lb_endpoints');
    system = await startApps({
      databaseUrl: db.url,
      replicas: { gateway: 2 },
      appEnv: {
        gateway: { LB_DOMAIN: 'lb.test', LB_COLD_START_WAIT_MS: '30000', LB_REPORT_MS: '200' },
        'pod-lifecycle': {
          RUNTIME_DRIVER: 'local',
          LOCAL_IMAGE_CATALOG: resolve('apps/pod-lifecycle/local-images.json'),
          LOCAL_PODS_DIR: podsDir,
          LOCAL_READY_MS: '100',
          LB_PING_INTERVAL_MS: String(PING_MS),
          LB_UNHEALTHY_AFTER_MS: '2000',
        },
        'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200', AUTOSCALER_FAILURE_BACKOFF_MS: '500' },
      },
    });
    alice = new LbClient(system, (await userWithKey(db.url, 'alice')).key);
    template = await alice.template('gpucp/lb-worker');
  });

  afterAll(async () => {
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  it('cold start: at workersMin 0 the first request waits for a worker and succeeds', async () => {
    const id = await alice.saveEndpoint(
      template.id,
      'type: "LB", workersMin: 0, workersMax: 2, idleTimeout: 60',
    );
    expect((await alice.endpoint(id)).pods).toEqual([]);
    const started = Date.now();
    const response = await alice.lb(id, '/echo', { method: 'POST', body: 'hello' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { worker: string; body: string };
    expect(body.body).toBe('hello');
    expect(Date.now() - started).toBeGreaterThan(PING_MS); // it waited for a worker to come up
    expect((await alice.endpoint(id)).pods.map((p) => p.id)).toContain(body.worker);
  });

  it('routes by path on every gateway replica and by host name, with the queue routes auth answers', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 1, workersMax: 1');
    const [worker] = await readyWorkers(id, 1);
    for (const replica of [0, 1]) {
      const response = await alice.lb(id, '/?x=1', {}, replica);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ worker });
      // Counted under the `lb` policy (its default quota, 6000 a minute), per user and endpoint.
      expect(response.headers.get('ratelimit')).toMatch(/^"minute";r=\d+;t=\d+/);
      expect(response.headers.get('ratelimit-policy')).toMatch(/^"minute";q=6000;/);
    }
    const bearer = `Bearer ${alice.key}`;
    const byHost = await rawRequest(`${system.url('gateway')}/`, {
      host: `${id}.lb.test`,
      authorization: bearer,
    });
    expect(byHost).toEqual({ status: 200, body: JSON.stringify({ worker }) });
    // curl's way with a body over 1 KB: Expect: 100-continue, then the body.
    const large = 'x'.repeat(2048);
    const continued = await rawRequest(
      `${system.url('gateway')}/lb/${id}/echo`,
      { authorization: bearer, expect: '100-continue', 'content-length': String(large.length) },
      { method: 'POST', body: large },
    );
    expect(continued).toEqual({ status: 200, body: JSON.stringify({ worker, body: large }) });

    const problem = async (response: Response) => {
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      return { status: response.status, detail: ((await response.json()) as { detail: string }).detail };
    };
    expect((await problem(await alice.lb(id, '/', { key: null }))).status).toBe(401);
    const bob = (await userWithKey(db.url, 'bob')).key;
    expect((await problem(await alice.lb(id, '/', { key: bob }))).status).toBe(403);
    const reader = (await createKey(db.url, 'alice', 'read')).key;
    expect((await alice.lb(id, '/', { key: reader })).status).toBe(200);
    expect((await problem(await alice.lb(id, '/echo', { key: reader, method: 'POST' }))).status).toBe(403);
    const scoped = (await createKey(db.url, 'alice', 'endpoints', [id])).key;
    expect((await alice.lb(id, '/', { key: scoped })).status).toBe(200);
    const otherScoped = (await createKey(db.url, 'alice', 'endpoints', ['someotherendpoint'])).key;
    expect((await problem(await alice.lb(id, '/', { key: otherScoped }))).status).toBe(403);
    const workerKey = (await alice.endpoint(id)).aiKey;
    expect((await problem(await alice.lb(id, '/', { key: workerKey }))).status).toBe(403);
    expect((await problem(await alice.lb('nosuchendpoint', '/'))).status).toBe(404);
    const queueBased = await alice.saveEndpoint(template.id, 'workersMin: 0, workersMax: 0');
    const wrongType = await problem(await alice.lb(queueBased, '/'));
    expect(wrongType.status).toBe(400);
    expect(wrongType.detail).toContain('queue-based (QB)');
  });

  it('spreads many concurrent requests over the workers', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 3, workersMax: 3');
    await readyWorkers(id, 3);
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const response = await alice.lb(id, '/slow?ms=50', {}, i % 2);
        expect(response.status).toBe(200);
        return ((await response.json()) as { worker: string }).worker;
      }),
    );
    const perWorker = new Map<string, number>();
    for (const worker of answers) perWorker.set(worker, (perWorker.get(worker) ?? 0) + 1);
    expect(perWorker.size).toBe(3);
    for (const count of perWorker.values()) expect(count).toBeGreaterThan(200 / 3 / 2);
  });

  it('streams a response chunk by chunk, as the worker sends it', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 1, workersMax: 1');
    await readyWorkers(id, 1);
    const response = await alice.lb(id, '/stream?n=4&gapMs=400');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const arrivals: { at: number; text: string }[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      arrivals.push({ at: Date.now(), text: decoder.decode(chunk) });
    }
    const events = arrivals.flatMap((a) =>
      a.text
        .split('\n\n')
        .filter(Boolean)
        .map(() => a.at),
    );
    expect(events).toHaveLength(4);
    // Each event arrived on its own, about gapMs after the one before (not all at once at the end).
    for (let i = 1; i < events.length; i++) expect(events[i] - events[i - 1]).toBeGreaterThan(250);
  });

  it('a worker killed mid-request: a GET is retried on another worker, a POST is answered 502', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 2, workersMax: 2');
    await readyWorkers(id, 2);
    for (const method of ['GET', 'POST']) {
      const [a, b] = await readyWorkers(id, 2);
      const pending = alice.lb(id, '/slow?ms=3000', { method });
      await sleep(300);
      // The least-outstanding pick sends the next request to the idle worker: the busy one is the other.
      const idle = await alice.whoAnswers(id);
      const busy = idle === a ? b : a;
      killWorker(podsDir, busy);
      const response = await pending;
      if (method === 'GET') {
        expect(response.status).toBe(200);
        expect(((await response.json()) as { worker: string }).worker).toBe(idle);
      } else {
        expect(response.status).toBe(502);
        expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
        const problem = (await response.json()) as { title: string; detail: string };
        expect(problem.title).toBe('Bad Gateway');
        expect(problem.detail).toMatch(new RegExp(`worker ${busy} .*failed before answering.*not retried`));
      }
    }
  });

  it('a worker whose /ping answers 503 leaves the rotation and is replaced', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 2, workersMax: 2');
    await readyWorkers(id, 2);
    const response = await alice.lb(id, '/health', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 503 }),
    });
    const sick = ((await response.json()) as { worker: string }).worker;
    await sleep(3 * PING_MS);
    for (let i = 0; i < 10; i++) expect(await alice.whoAnswers(id)).not.toBe(sick);
    // Unhealthy past LB_UNHEALTHY_AFTER_MS: its pod goes ERROR and the autoscaler puts another in its place.
    await until('the unhealthy worker replaced', async () => {
      const pods = await running(id);
      return pods.length === 2 && !pods.some((p) => p.id === sick);
    });
  });

  it('scale-down never cuts a request in flight', async () => {
    const id = await alice.saveEndpoint(
      template.id,
      'type: "LB", workersMin: 1, workersMax: 1, idleTimeout: 1',
    );
    const [worker] = await readyWorkers(id, 1);
    const pending = alice.lb(id, '/slow?ms=3000');
    await sleep(500);
    await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 0, workersMax: 0', id);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ worker, sleptMs: 3000 });
    await until('no worker left', async () => (await alice.endpoint(id)).pods.length === 0);
  });

  it('a worker terminated while answering is drained: the request finishes first', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 1, workersMax: 1');
    const [worker] = await readyWorkers(id, 1);
    // Longer than the runtime's grace between SIGTERM and SIGKILL (3 s): only the drain lets it finish.
    const pending = alice.lb(id, '/slow?ms=5000');
    await sleep(300);
    const terminate = await fetch(`${system.url('gateway')}/v2/pods/${worker}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect(terminate.status).toBe(204);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ worker, sleptMs: 5000 });
  });

  it('a WebSocket through /lb/<id>/ws reaches the worker and echoes; without a key it is refused', async () => {
    const id = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 1, workersMax: 1');
    const [worker] = await readyWorkers(id, 1);
    const url = `${system.url('gateway').replace(/^http/, 'ws')}/lb/${id}/ws`;
    // The key as bearer (servers, CLIs), then as a subprotocol (what a browser can send).
    for (const open of [
      () => new WebSocket(url, { headers: { authorization: `Bearer ${alice.key}` } }),
      () => new WebSocket(url, [`bearer.${alice.key}`, 'echo']),
    ]) {
      const socket = open();
      let answered: Record<string, unknown> = {};
      socket.once('upgrade', (response) => (answered = response.headers));
      const received: string[] = [];
      socket.on('message', (data: Buffer) => received.push(data.toString('utf8')));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      await until('the greeting', () => Promise.resolve(received.length === 1 || undefined));
      expect(JSON.parse(received[0])).toEqual({ worker });
      // Counted under the `lb` policy, as the endpoint's HTTP requests are.
      expect(String(answered['ratelimit-policy'])).toMatch(/^"minute";q=6000;/);
      socket.send('hello');
      await until('the echo', () => Promise.resolve(received.length === 2 || undefined));
      expect(received[1]).toBe('hello');
      socket.close();
      await new Promise((resolve) => socket.once('close', resolve));
    }

    for (const headers of [{}, { authorization: 'Bearer not-a-key' }]) {
      const status = await new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(url, { headers });
        socket.once('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          socket.terminate();
        });
        socket.once('open', () => reject(new Error('an upgrade without a valid key was let through')));
        socket.on('error', () => undefined);
      });
      expect(status).toBe(401);
    }
  });

  it('no ready worker within LB_COLD_START_WAIT_MS: 504; workersMax 0: refused at once', async () => {
    // One replica waits one second only; the worker answers /ping 204 (initializing) for ten minutes.
    await system.restart('gateway', { LB_COLD_START_WAIT_MS: '1000' }, 1);
    const id = await alice.saveEndpoint(
      template.id,
      'type: "LB", workersMin: 1, workersMax: 1, env: [{ key: "INIT_MS", value: "600000" }]',
    );
    await until('the worker running', async () => (await running(id)).length === 1);
    const started = Date.now();
    const response = await alice.lb(id, '/', {}, 1);
    expect(response.status).toBe(504);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = (await response.json()) as { title: string; detail: string };
    expect(problem.title).toBe('Gateway Timeout');
    expect(problem.detail).toMatch(new RegExp(`no worker of endpoint ${id} was ready within 1000 ms`));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    const none = await alice.saveEndpoint(template.id, 'type: "LB", workersMin: 0, workersMax: 0');
    const refused = await alice.lb(none, '/', {}, 1);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/workersMax 0/);
  });
});
