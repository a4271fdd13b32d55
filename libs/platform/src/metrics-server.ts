import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRegistry } from '@app/observability';

/**
 * `GET /metrics` (Prometheus text format) on a listener of its own, METRICS_HOST:METRICS_PORT, never on the
 * app's HTTP port: the gateway's HTTP port is public, and what the metrics tell (routes, users' request rates,
 * store failures) is for the operator's scraper only. Loopback by default; the Kubernetes manifests bind it to
 * the pod's address and let only in-cluster peers reach it (docs/adr/0014-edge-hardening.md). Plain node:http:
 * one route needs no framework, and it keeps answering while the app drains.
 */
export async function startMetricsServer(port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only /metrics is served here\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
      return;
    }
    metricsRegistry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': metricsRegistry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function closeMetricsServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * What a listener is really bound to, `host:port` (`[v6]:port` for IPv6), from `server.address()`: not the URL a
 * client would use (Nest's getUrl() turns 0.0.0.0 into 127.0.0.1), but what is reachable from where.
 */
export function boundAddress(address: AddressInfo | string | null): string {
  if (address === null) return 'not listening';
  if (typeof address === 'string') return address;
  const host =
    address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `${host}:${address.port}`;
}

/** Whether a bound address (as `boundAddress` writes it) takes connections from other hosts. */
export function isLoopback(bound: string): boolean {
  return /^(127\.\d+\.\d+\.\d+|\[::1\]|\[::ffff:127\.\d+\.\d+\.\d+\]):\d+$/.test(bound);
}
