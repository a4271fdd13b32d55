import { Injectable, Logger } from '@nestjs/common';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError, ErrorCode } from '@app/contracts';
import { toProblem } from '../edge/to-problem.js';
import { PROBLEM_CONTENT_TYPE } from '../edge/problem.js';
import { LbAccess } from './lb-access.js';
import { LbLoad } from './lb-load.js';
import { LbProxy } from './lb-proxy.js';
import { lbHostRewriter } from './lb-routes.setup.js';

/** A browser cannot set Authorization on a WebSocket: it may offer the key as this subprotocol's suffix. */
export const BEARER_PROTOCOL_PREFIX = 'bearer.';

/** Not forwarded on an upgrade: the caller's key (either form) and what names the gateway's own connection. */
const NOT_FORWARDED = new Set(['authorization', 'host', 'proxy-authorization', 'sec-websocket-protocol']);

/**
 * Protocol upgrades (WebSocket) to load-balancing endpoints: Fastify does not route them, so the HTTP server's
 * `upgrade` event comes here. The same rules as `/lb/` requests (LbAccess, shared): the key as bearer (or, for
 * browsers, the subprotocol `bearer.<key>`, never in the URL), its scope, the caller's LB endpoint; then a ready worker
 * (least outstanding, a cold start waited for) gets the upgrade, and once it agrees (101) the two sockets are
 * joined. The connection counts as a request in flight on that worker until it closes, so the pick spreads
 * connections and a drain waits for it (up to LB_DRAIN_TIMEOUT_MS, then the worker stops and the socket ends).
 */
@Injectable()
export class LbUpgrade {
  private readonly logger = new Logger('lb');

  constructor(
    private readonly access: LbAccess,
    private readonly proxy: LbProxy,
    private readonly load: LbLoad,
  ) {}

  /** Listens for upgrades on the app's HTTP server (main.ts, before it listens). */
  attach(server: Server, lbDomain: string): void {
    const rewrite = lbHostRewriter(lbDomain);
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const url = rewrite ? rewrite(request) : (request.url ?? '/');
      const extra: string[] = [];
      this.upgrade(request, url, socket, head, extra).catch((error: unknown) => {
        if (!(error instanceof DomainError)) this.logger.error(`upgrade of ${url} failed`, error as Error);
        refuse(socket, error, extra);
      });
    });
  }

  /** `extra`: header lines for the answer (the RateLimit ones), whether the upgrade is refused or goes through. */
  private async upgrade(
    request: IncomingMessage,
    url: string,
    socket: Duplex,
    head: Buffer,
    extra: string[],
  ): Promise<void> {
    const match = /^\/lb\/([^/?#]+)(.*)$/.exec(url);
    if (!match) {
      throw new DomainError(ErrorCode.NotFound, `no WebSocket route at ${url.split('?')[0]}`);
    }
    const [, endpointId, rest] = match;
    const { key, protocols } = presented(request);
    const endpoint = await this.access.admit({
      key,
      missingKey: `missing API key: send Authorization: Bearer <key>, or the subprotocol ${BEARER_PROTOCOL_PREFIX}<key>`,
      endpointId,
      // An upgrade is a GET: a read key may open one.
      method: 'GET',
      headers: request.headers,
      rateLimitHeaders: { header: (name, value) => extra.push(`${name}: ${value}`) },
    });
    const abort = new AbortController();
    socket.once('close', () => abort.abort());
    const worker = await this.proxy.readyWorker(endpoint, abort.signal);
    if (!worker) return; // the client went away while waiting
    const finished = this.load.started(endpointId, worker.podId);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = value;
    }
    if (protocols.length > 0) headers['sec-websocket-protocol'] = protocols.join(', ');
    const upstream = httpRequest(`${worker.url}${rest.startsWith('/') ? rest : `/${rest}`}`, {
      method: 'GET',
      headers,
      signal: abort.signal,
    });
    upstream.on('upgrade', (response, workerSocket, workerHead) => {
      // A browser fails a handshake that selects none of the subprotocols it offered: when the worker chose
      // none, the first one it was offered besides the key is the answer (the key itself is never echoed).
      const chosen =
        response.headers['sec-websocket-protocol'] === undefined && protocols.length > 0
          ? protocols[0]
          : undefined;
      socket.write(statusBlock(response, chosen, extra));
      if (workerHead.length > 0) socket.write(workerHead);
      if (head.length > 0) workerSocket.write(head);
      workerSocket.on('error', () => socket.destroy());
      workerSocket.once('close', () => {
        socket.destroy();
        finished();
      });
      socket.once('close', () => workerSocket.destroy());
      workerSocket.pipe(socket).pipe(workerSocket);
    });
    upstream.on('response', (response) => {
      // The worker declined the upgrade: its answer is the client's, as on any request.
      socket.write(statusBlock(response, undefined, extra));
      response.pipe(socket);
      response.once('end', finished).once('close', finished);
    });
    upstream.on('error', (error) => {
      finished();
      if (abort.signal.aborted) return;
      refuse(
        socket,
        new DomainError(
          ErrorCode.UpstreamFailed,
          `worker ${worker.podId} of endpoint ${endpointId} failed the upgrade (${(error as { code?: string }).code ?? error.message})`,
        ),
      );
    });
    upstream.end();
  }
}

/** The key, from Authorization or a `bearer.<key>` subprotocol, and the subprotocols left for the worker. */
function presented(request: IncomingMessage): { key: string | null; protocols: string[] } {
  const offered = String(request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const protocols = offered.filter((p) => !p.startsWith(BEARER_PROTOCOL_PREFIX));
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (bearer) return { key: bearer[1], protocols };
  const fromProtocol = offered.find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  return { key: fromProtocol ? fromProtocol.slice(BEARER_PROTOCOL_PREFIX.length) || null : null, protocols };
}

function statusBlock(response: IncomingMessage, protocol: string | undefined, extra: string[]): string {
  const lines = [`HTTP/1.1 ${response.statusCode} ${response.statusMessage ?? ''}`];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
  }
  if (protocol) lines.push(`Sec-WebSocket-Protocol: ${protocol}`);
  lines.push(...extra);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Answers a refused upgrade with a problem+json body, as the HTTP routes would, and closes the socket. */
function refuse(socket: Duplex, error: unknown, extra: string[] = []): void {
  if (socket.destroyed) return;
  const { problem } = toProblem(error);
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${problem.status} ${problem.title}\r\nconnection: close\r\n` +
      extra.map((line) => `${line}\r\n`).join('') +
      `content-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
