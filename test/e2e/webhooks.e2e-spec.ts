import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createKey } from '../support/accounts.js';
import { call, eventually, startJobsSystem, type JobsSystem } from './jobs.e2e-helpers.js';

type Json = Record<string, unknown>;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Webhooks as an attacker and as a receiver see them: URLs checked at submit, addresses checked at send time (after
 * name resolution, redirects never followed), and every delivery signed per Standard Webhooks with a secret the
 * endpoint's owner reads and rotates. 127.0.0.1 plays an internal service that must never be reached; 127.0.0.2
 * an on-prem receiver the operator allowed (WEBHOOK_ALLOWED_NETWORKS).
 */
describe('webhooks: safe targets and signatures', () => {
  let jobs: JobsSystem;
  let internal: Server;
  let receiver: Server;
  let internalPort: number;
  let receiverPort: number;
  const internalHits: string[] = [];
  const received: Received[] = [];
  const ep = () => jobs.endpoints.manual;
  const url = (path: string) => `${jobs.gateway}/v2/${ep()}${path}`;
  const owner = () => jobs.user.key;
  const workerKey = () => jobs.workerKeys[ep()];

  const listen = (server: Server, host: string) =>
    new Promise<number>((resolve) =>
      server.listen(0, host, () => resolve((server.address() as AddressInfo).port)),
    );

  /** Submits a job with `webhook`, and finishes it as its worker would. */
  const runToEnd = async (webhook: string): Promise<string> => {
    const accepted = await call('POST', url('/run'), owner(), { input: { n: 1 }, webhook });
    expect(accepted.status).toBe(200);
    const id = (accepted.body as Json).id as string;
    const taken = await call('GET', url('/job-take/w1?gpu=x&job_in_progress=0'), workerKey());
    expect((taken.body as Json).id).toBe(id);
    const done = await call('POST', url(`/job-done/w1/${id}?gpu=x&isStream=false`), workerKey(), {
      output: { ok: 1 },
    });
    expect(done.body).toMatchObject({ recorded: 'completed' });
    return id;
  };
  const deliveryOf = (jobId: string) =>
    eventually(async () => {
      const { rows } = await jobs.sql.query<{
        attempts: number;
        delivered_at: Date | null;
        gave_up_at: Date | null;
        last_error: string | null;
      }>(
        'SELECT attempts, delivered_at, gave_up_at, last_error FROM queue_broker.webhook_deliveries WHERE job_id = $1',
        [jobId],
      );
      const row = rows[0];
      return row && (row.delivered_at || row.gave_up_at) ? row : null;
    });
  const receivedFor = (jobId: string) =>
    eventually(() => Promise.resolve(received.find((r) => (JSON.parse(r.body) as Json).id === jobId)));

  beforeAll(async () => {
    internal = createServer((req, res) => {
      internalHits.push(req.url ?? '');
      res.end('internal');
    });
    receiver = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${internalPort}/stolen` }).end();
        return;
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    internalPort = await listen(internal, '127.0.0.1');
    receiverPort = await listen(receiver, '127.0.0.2');
    jobs = await startJobsSystem('webhooks', {
      endpoints: ['manual'],
      broker: {
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.2/32',
        WEBHOOK_RETRY_INTERVAL_MS: '100',
        WEBHOOK_MAX_ATTEMPTS: '2',
        WEBHOOK_TIMEOUT_MS: '2000',
      },
    });
  });

  afterAll(async () => {
    await jobs?.close();
    for (const server of [internal, receiver]) {
      server?.closeAllConnections();
      await new Promise((r) => server?.close(r));
    }
  });

  it('refuses a webhook that is not an http(s) URL with 422, naming the field, and queues nothing', async () => {
    for (const path of ['/run', '/runsync']) {
      for (const webhook of ['file:///etc/passwd', 'not a url', 'gopher://example.com/']) {
        const reply = await call('POST', url(path), owner(), { input: {}, webhook });
        expect(reply.status).toBe(422);
        expect(reply.contentType).toContain('application/problem+json');
        expect(JSON.stringify(reply.body)).toContain('webhook must be an absolute http:// or https:// URL');
      }
      const v2 = await call('POST', url(path), owner(), { input: {}, webhookV2: 'file:///etc/passwd' });
      expect(v2.status).toBe(422);
      expect(JSON.stringify(v2.body)).toContain('webhookV2 must be');
    }
    const { rows } = await jobs.sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM queue_broker.jobs WHERE endpoint_id = $1',
      [ep()],
    );
    expect(rows[0].n).toBe(0);
  });

  it('gives the signing secret only to a key that may manage the endpoint', async () => {
    const readKey = await createKey(jobs.db.url, `owner-webhooks`, 'read');
    expect((await call('GET', url('/webhook-secret'), readKey.key)).status).toBe(403);
    expect((await call('GET', url('/webhook-secret'), workerKey())).status).toBe(403);
    expect((await call('POST', url('/webhook-secret/rotate'), readKey.key)).status).toBe(403);
    // A client key of this very endpoint submits its jobs; it does not manage it.
    const clientKey = await createKey(jobs.db.url, `owner-webhooks`, 'endpoints', [ep()]);
    expect((await call('GET', url('/webhook-secret'), clientKey.key)).status).toBe(403);
    expect((await call('GET', url('/health'), clientKey.key)).status).toBe(200);
    const first = await call('GET', url('/webhook-secret'), owner());
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      endpointId: ep(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect((await call('GET', url('/webhook-secret'), owner())).body).toEqual(first.body);
    // Kept sealed: neither the broker's table nor the recorded command holds it in plaintext.
    const secret = (first.body as Json).secret as string;
    const { rows } = await jobs.sql.query<{ row: string }>(
      'SELECT row_to_json(s)::text AS row FROM queue_broker.webhook_secrets s',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].row).not.toContain(secret.slice('whsec_'.length, 30));
  });

  it('signs every delivery; after a rotation both secrets verify until the overlap ends', async () => {
    const before = (await call('GET', url('/webhook-secret'), owner())).body as Json;
    const id = await runToEnd(`http://127.0.0.2:${receiverPort}/hook?token=t1`);
    const delivery = await receivedFor(id);
    expect(delivery.path).toBe('/hook?token=t1');
    const verified = new Webhook(before.secret as string).verify(
      delivery.body,
      delivery.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({ id, status: 'COMPLETED', output: { ok: 1 } });
    expect(await deliveryOf(id)).toMatchObject({ attempts: 1, gave_up_at: null });

    const rotated = await call('POST', url('/webhook-secret/rotate'), owner());
    expect(rotated.status).toBe(200);
    const after = rotated.body as Json;
    expect(after.secret).not.toBe(before.secret);
    const next = await runToEnd(`http://127.0.0.2:${receiverPort}/hook`);
    const signed = await receivedFor(next);
    expect(String(signed.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [after.secret, before.secret] as string[]) {
      expect(new Webhook(secret).verify(signed.body, signed.headers as Record<string, string>)).toMatchObject(
        { id: next },
      );
    }
    const tampered = { ...(signed.headers as Record<string, string>), 'webhook-id': 'msg_forged' };
    expect(() => new Webhook(after.secret as string).verify(signed.body, tampered)).toThrow();
  });

  it('never reaches an internal address, however it is spelt, resolved or redirected to', async () => {
    const port = internalPort;
    const targets = [
      `http://127.0.0.1:${port}/plain`,
      `http://2130706433:${port}/decimal`,
      `http://[::ffff:127.0.0.1]:${port}/mapped`,
      `http://localhost:${port}/name`,
      `http://169.254.169.254/latest/meta-data/`,
    ];
    const ids: string[] = [];
    for (const target of targets) ids.push(await runToEnd(target));
    const redirected = await runToEnd(`http://127.0.0.2:${receiverPort}/redirect`);
    for (const id of ids) {
      const row = await deliveryOf(id);
      expect(row).toMatchObject({ attempts: 2, delivered_at: null });
      expect(row.last_error).toMatch(/not allowed/);
    }
    const row = await deliveryOf(redirected);
    expect(row).toMatchObject({ attempts: 2, delivered_at: null });
    expect(row.last_error).toBe('answered 302 (redirects are not followed)');
    expect(internalHits).toEqual([]);
  });
});
