import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookTransport, redactedUrl } from './webhook-transport.js';

/** Real sockets on loopback: 127.0.0.1 plays an internal service, 127.0.0.2 an allowed on-prem receiver. */
describe('WebhookTransport: where a webhook may go', () => {
  const hits: { host: string; url: string }[] = [];
  let internal: Server;
  let receiver: Server;
  let internalPort: number;
  let receiverPort: number;

  const listen = (server: Server, host: string) =>
    new Promise<number>((resolve) =>
      server.listen(0, host, () => resolve((server.address() as AddressInfo).port)),
    );
  const record = (req: IncomingMessage) =>
    hits.push({ host: req.socket.localAddress ?? '', url: req.url ?? '' });

  beforeAll(async () => {
    internal = createServer((req, res) => {
      record(req);
      res.end('internal');
    });
    receiver = createServer((req, res) => {
      record(req);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${internalPort}/stolen` }).end();
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 2000).unref();
      } else if (req.url === '/large') {
        res.writeHead(200);
        res.write(Buffer.alloc(1024 * 1024)); // more than the transport reads
        setTimeout(() => res.end(), 3000).unref();
      } else {
        req.resume();
        req.on('end', () => res.writeHead(204).end());
      }
    });
    internalPort = await listen(internal, '127.0.0.1');
    receiverPort = await listen(receiver, '127.0.0.2');
  });

  afterAll(async () => {
    internal.closeAllConnections();
    receiver.closeAllConnections();
    await Promise.all([internal, receiver].map((s) => new Promise((r) => s.close(r))));
  });

  const post = (transport: WebhookTransport, url: string, timeoutMs = 1500) =>
    transport.post({ url, body: '{"id":"j"}', headers: { 'content-type': 'application/json' }, timeoutMs });

  it('refuses loopback in every spelling, and names that resolve to it, without a byte sent', async () => {
    const transport = new WebhookTransport([]);
    const before = hits.length;
    for (const url of [
      `http://127.0.0.1:${internalPort}/a`,
      `http://2130706433:${internalPort}/b`, // 127.0.0.1 as one decimal number
      `http://0x7f.0.0.1:${internalPort}/c`,
      `http://[::ffff:127.0.0.1]:${internalPort}/d`, // IPv4-mapped IPv6
      `http://localhost:${internalPort}/e`, // a name resolving to loopback
      `http://[::1]:${internalPort}/f`,
      `http://0.0.0.0:${internalPort}/g`,
      'http://169.254.169.254/latest/meta-data/', // the cloud metadata service
      'http://10.1.2.3:80/', // private: refused before any connection is tried
      `https://127.0.0.1:${internalPort}/h`,
    ]) {
      await expect(post(transport, url)).rejects.toThrow(/not allowed/);
    }
    expect(hits.length).toBe(before);
  });

  it('reaches an address of WEBHOOK_ALLOWED_NETWORKS, and only that', async () => {
    const transport = new WebhookTransport(['127.0.0.2/32']);
    await expect(post(transport, `http://127.0.0.2:${receiverPort}/hook`)).resolves.toBe(204);
    expect(hits.at(-1)).toEqual({ host: '127.0.0.2', url: '/hook' });
    await expect(post(transport, `http://127.0.0.1:${internalPort}/x`)).rejects.toThrow(/not allowed/);
  });

  it('does not follow a redirect: the 302 is the answer', async () => {
    const transport = new WebhookTransport(['127.0.0.2/32']);
    const before = hits.filter((h) => h.url === '/stolen').length;
    await expect(post(transport, `http://127.0.0.2:${receiverPort}/redirect`)).resolves.toBe(302);
    await new Promise((r) => setTimeout(r, 200));
    expect(hits.filter((h) => h.url === '/stolen').length).toBe(before);
  });

  it('gives up on a receiver that does not answer in time, and stops reading a large answer', async () => {
    const transport = new WebhookTransport(['127.0.0.2/32']);
    await expect(post(transport, `http://127.0.0.2:${receiverPort}/slow`, 300)).rejects.toThrow(
      'no answer within 300 ms',
    );
    const started = Date.now();
    await expect(post(transport, `http://127.0.0.2:${receiverPort}/large`, 2500)).resolves.toBe(200);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('refuses schemes other than http and https', async () => {
    await expect(post(new WebhookTransport([]), 'file:///etc/passwd')).rejects.toThrow(
      'scheme file: refused',
    );
  });

  it('logs only the origin of a URL', () => {
    expect(redactedUrl('https://hooks.example.com:8443/t/SECRET?token=abc')).toBe(
      'https://hooks.example.com:8443/…',
    );
    expect(redactedUrl('not a url')).toBe('(not a URL)');
  });
});
