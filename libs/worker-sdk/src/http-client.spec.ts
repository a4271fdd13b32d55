import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient } from './http-client.js';

let server: http.Server;
let base: string;
const client = new HttpClient();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/hang') return; // answers never: for the abort
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"partial":');
        setTimeout(() => res.destroy(), 20);
        return;
      }
      if (req.url === '/empty') {
        res.writeHead(204).end();
        return;
      }
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('HttpClient', () => {
  it('sends a POST with its headers and body and reads the whole answer, on one kept-alive connection', async () => {
    const body = JSON.stringify({ output: 'héllo ☃' });
    const connections = new Set<unknown>();
    const onConnection = (socket: unknown) => connections.add(socket);
    server.on('connection', onConnection);
    try {
      for (let i = 0; i < 3; i++) {
        const response = await client.request(`${base}/done`, {
          method: 'POST',
          headers: { authorization: 'key', 'content-type': 'application/json' },
          body,
        });
        expect(response).toMatchObject({ status: 200, ok: true });
        expect(JSON.parse(response.body)).toEqual({ method: 'POST', auth: 'key', body });
      }
      expect(connections.size).toBeLessThanOrEqual(1);
    } finally {
      server.off('connection', onConnection);
    }
  });

  it('answers statuses as they are: 204 (ok) with an empty body, 404 not ok', async () => {
    await expect(client.request(`${base}/empty`)).resolves.toEqual({ status: 204, ok: true, body: '' });
    const missing = await client.request(`${base}/missing`);
    expect(missing.status).toBe(404);
    expect(missing.ok).toBe(false);
  });

  it('rejects when its signal fires before the answer', async () => {
    const started = Date.now();
    await expect(client.request(`${base}/hang`, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('rejects an answer cut off before its end instead of returning part of it', async () => {
    await expect(client.request(`${base}/cut`)).rejects.toThrow();
  });

  it('rejects a URL that is not http or https', async () => {
    await expect(client.request('ftp://example.invalid/x')).rejects.toThrow('unsupported URL scheme ftp:');
  });
});
