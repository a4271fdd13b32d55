import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { DomainError, ErrorCode, type EndpointView } from '@app/contracts';
import { GatewayConfig } from '../gateway.config.js';
import { LbLoad } from './lb-load.js';
import { originalHeaders } from './lb-unread-body.js';
import { LbWorkers } from './lb-workers.js';
import { IDEMPOTENT_METHODS, pickWorker, type LbCandidate } from './worker-pick.js';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and what the worker must not see: they are not forwarded. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  // Node answered `100 Continue` to the client already (curl sends it with any body over 1 KB); undici refuses it.
  'expect',
  // The caller's API key is the platform's business, never the worker's.
  'authorization',
]);

/** At most this many workers are tried for one idempotent request. */
const MAX_ATTEMPTS = 3;

/**
 * The load balancer of LB endpoints: picks a ready worker (least outstanding requests on this replica), forwards
 * the request on undici and streams both bodies through as they come (server-sent events and chunked responses
 * reach the client chunk by chunk). When no worker is ready the request waits up to LB_COLD_START_WAIT_MS for
 * one (it counts as waiting in the load the autoscaler scales on), then 504. A worker that dies or cannot be
 * reached before answering: an idempotent request (body kept in memory up to LB_RETRY_BODY_BYTES) goes to
 * another worker, and so does any request whose connection was refused (it reached nothing); anything else is
 * answered 502. Once the worker answered, its response is the client's.
 */
@Injectable()
export class LbProxy implements BeforeApplicationShutdown {
  private readonly logger = new Logger('lb');
  private readonly agent: Agent;
  private turn = 0;

  constructor(
    private readonly workers: LbWorkers,
    private readonly load: LbLoad,
    @Inject(GatewayConfig) private readonly config: GatewayConfig,
  ) {
    this.agent = new Agent({
      headersTimeout: config.LB_RESPONSE_TIMEOUT_MS,
      bodyTimeout: config.LB_IDLE_TIMEOUT_MS,
      connectTimeout: 5000,
      keepAliveTimeout: 4000,
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }

  async forward(
    endpoint: EndpointView,
    path: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    if (endpoint.workersMax === 0) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `endpoint ${endpoint.id} has workersMax 0, so no worker can answer; raise workersMax to serve requests`,
      );
    }
    const headers = originalHeaders(request);
    if (headers.upgrade !== undefined) {
      throw new DomainError(
        ErrorCode.NotAvailable,
        `protocol upgrades (Upgrade: ${String(headers.upgrade)}, e.g. WebSocket) are not supported on ` +
          'load-balancing endpoints here; use plain HTTP requests, server-sent events or chunked responses',
      );
    }
    const started = Date.now();
    const abort = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const { body, retryable } = await this.requestBody(request, headers);
    const forwarded = forwardedHeaders(headers, request, body);
    const tried = new Set<string>();
    for (;;) {
      const worker = await this.nextWorker(endpoint.id, tried, started, abort.signal);
      if (!worker) return; // the client went away while waiting
      tried.add(worker.podId);
      const finished = this.load.started(endpoint.id, worker.podId);
      let response: Dispatcher.ResponseData;
      try {
        response = await this.agent.request({
          origin: worker.url,
          path,
          method: request.method,
          headers: forwarded,
          body,
          signal: abort.signal,
        });
      } catch (error) {
        finished();
        if (abort.signal.aborted) return;
        if (
          error instanceof undiciErrors.InvalidArgumentError ||
          error instanceof undiciErrors.NotSupportedError
        ) {
          // Refused before anything was sent (a header undici cannot forward): the request's fault, not the worker's.
          throw new DomainError(
            ErrorCode.BadRequest,
            `the request cannot be forwarded to a worker: ${(error as Error).message}`,
          );
        }
        if (error instanceof undiciErrors.HeadersTimeoutError) {
          throw new DomainError(
            ErrorCode.UpstreamTimeout,
            `worker ${worker.podId} of endpoint ${endpoint.id} did not answer within ` +
              `${this.config.LB_RESPONSE_TIMEOUT_MS} ms (LB_RESPONSE_TIMEOUT_MS)`,
          );
        }
        this.workers.unreachable(endpoint.id, worker.podId);
        const why = (error as { code?: string }).code ?? (error as Error).message;
        // A connection that was never made carried nothing: any method may go elsewhere, unless its body was the
        // client's stream (which may have been read from already).
        const neverSent =
          !isStream(body) &&
          ((error as { code?: string }).code === 'ECONNREFUSED' ||
            error instanceof undiciErrors.ConnectTimeoutError);
        if ((retryable || neverSent) && tried.size < MAX_ATTEMPTS) {
          this.logger.warn(
            `endpoint ${endpoint.id}: worker ${worker.podId} failed (${why}); retrying elsewhere`,
          );
          continue;
        }
        throw new DomainError(
          ErrorCode.UpstreamFailed,
          `worker ${worker.podId} of endpoint ${endpoint.id} failed before answering (${why}); ` +
            (retryable
              ? `tried ${tried.size} worker(s)`
              : `a ${request.method} request${body ? ' with a streamed body' : ''} is not sent twice, so it was not retried`),
        );
      }
      const stream = response.body;
      stream.once('end', finished).once('error', finished).once('close', finished);
      void reply.code(response.statusCode).headers(responseHeaders(response.headers));
      if (bufferable(request.method, response)) {
        // A small body of declared length: read whole and sent with the headers in one write, instead of a
        // piped stream's separate writes (the socket writes were the largest cost in the gateway's profile).
        await reply.send(Buffer.from(await stream.arrayBuffer()));
        return;
      }
      await reply.send(stream);
      return;
    }
  }

  /** A ready worker for a new connection (a WebSocket upgrade), a cold start waited for as for a request. */
  readyWorker(endpoint: EndpointView, signal: AbortSignal): Promise<LbCandidate | null> {
    if (endpoint.workersMax === 0) {
      throw new DomainError(
        ErrorCode.InvalidState,
        `endpoint ${endpoint.id} has workersMax 0, so no worker can answer; raise workersMax to serve requests`,
      );
    }
    return this.nextWorker(endpoint.id, new Set(), Date.now(), signal);
  }

  /** A ready worker not tried yet; waits (a cold start) until LB_COLD_START_WAIT_MS after the request came. */
  private async nextWorker(
    endpointId: string,
    tried: ReadonlySet<string>,
    started: number,
    signal: AbortSignal,
  ): Promise<LbCandidate | null> {
    for (;;) {
      const worker = pickWorker(this.workers.ready(endpointId), this.load.outstanding, tried, this.turn++);
      if (worker) return worker;
      const stopWaiting = this.load.waiting(endpointId);
      const ready = await this.workers
        .waitForReady(endpointId, started + this.config.LB_COLD_START_WAIT_MS - Date.now(), signal)
        .finally(stopWaiting);
      if (signal.aborted) return null;
      if (!ready) {
        throw new DomainError(
          ErrorCode.UpstreamTimeout,
          `no worker of endpoint ${endpointId} was ready within ${this.config.LB_COLD_START_WAIT_MS} ms ` +
            `(LB_COLD_START_WAIT_MS): its workers are starting (a cold start), failing their /ping health check, ` +
            'or run an image this runtime only simulates; try again shortly',
        );
      }
    }
  }

  /**
   * The body to send: none; kept in memory when the request may be sent to another worker (an idempotent method
   * with a declared length up to LB_RETRY_BODY_BYTES); else the client's stream itself, sent once.
   */
  private async requestBody(
    request: FastifyRequest,
    headers: IncomingHttpHeaders,
  ): Promise<{ body: Buffer | Readable | null; retryable: boolean }> {
    const idempotent = IDEMPOTENT_METHODS.has(request.method);
    const length = headers['content-length'];
    if (headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
      return { body: null, retryable: idempotent };
    }
    if (idempotent && length !== undefined && Number(length) <= this.config.LB_RETRY_BODY_BYTES) {
      const chunks: Buffer[] = [];
      for await (const chunk of request.raw) chunks.push(chunk as Buffer);
      return { body: Buffer.concat(chunks), retryable: true };
    }
    return { body: request.raw, retryable: false };
  }
}

function forwardedHeaders(
  headers: IncomingHttpHeaders,
  request: FastifyRequest,
  body: Buffer | Readable | null,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) out[name] = value;
  }
  if (Buffer.isBuffer(body)) out['content-length'] = String(body.length);
  const chain = headers['x-forwarded-for'];
  out['x-forwarded-for'] = chain ? `${String(chain)}, ${request.ip}` : request.ip;
  if (headers.host) out['x-forwarded-host'] = headers.host;
  out['x-forwarded-proto'] = request.protocol;
  return out;
}

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) out[name] = value;
  }
  return out;
}

/** Declared-length bodies up to this size are sent in one write with the headers; larger ones are streamed. */
const BUFFERED_BODY_BYTES = 64 * 1024;

/**
 * A response worth reading whole before sending: a declared length up to BUFFERED_BODY_BYTES (so no server-sent
 * events or chunked stream, which must reach the client as they come), and a body at all (not HEAD, 204, 304).
 */
function bufferable(method: string, response: Dispatcher.ResponseData): boolean {
  if (method === 'HEAD' || response.statusCode === 204 || response.statusCode === 304) return false;
  const length = response.headers['content-length'];
  if (typeof length !== 'string') return false;
  const bytes = Number(length);
  return Number.isInteger(bytes) && bytes >= 0 && bytes <= BUFFERED_BODY_BYTES;
}

function isStream(body: Buffer | Readable | null): body is Readable {
  return body !== null && !Buffer.isBuffer(body);
}
