import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';

/** What a queue or worker route asks of Fastify beyond Nest's defaults (`@RouteConfig(jobRoute({...}))`). */
export interface JobRouteOptions {
  /** Largest body of this route (the interface's /run 10 MB, /runsync 20 MB); over it: 413 problem+json. */
  bodyLimit?: number;
}

const KEY = 'gpucpJobRoute';

export function jobRoute(options: JobRouteOptions): Record<string, JobRouteOptions> {
  return { [KEY]: options };
}

/** A body with nothing in it: no JSON parse error for `content-type: application/json` and no body. */
const allowEmptyBody: onRequestHookHandler = (request: FastifyRequest, _reply, done) => {
  const length = request.headers['content-length'];
  if ((length === '0' || length === undefined) && request.headers['transfer-encoding'] === undefined) {
    delete request.headers['content-type'];
  }
  done();
};

/** The job-done / job-stream bodies: JSON whatever the Content-Type (the Python SDK sends form-urlencoded). */
function lenientJson(
  _request: FastifyRequest,
  body: Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  const text = body.toString('utf8');
  if (!text.trim()) return done(null, undefined);
  try {
    done(null, JSON.parse(text) as unknown);
  } catch {
    done(null, Object.fromEntries(new URLSearchParams(text)));
  }
}

/**
 * Wires the queue and worker routes into Fastify before the app listens (called from main.ts): per-route body
 * limits (Fastify's is otherwise global), empty bodies on every route, and JSON bodies sent as form-urlencoded or
 * text.
 */
export function configureJobRoutes(app: NestFastifyApplication, defaultBodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route: RouteOptions) => {
    // Clients send `Content-Type: application/json` with no body on actions (cancel, purge-queue, pod start):
    // every route takes that as no body rather than as malformed JSON.
    const existing = route.onRequest;
    route.onRequest = [...(Array.isArray(existing) ? existing : existing ? [existing] : []), allowEmptyBody];
    const options = (route.config as Record<string, JobRouteOptions | undefined> | undefined)?.[KEY];
    if (options?.bodyLimit !== undefined) route.bodyLimit = options.bodyLimit;
  });
  app.useBodyParser(
    ['application/x-www-form-urlencoded', 'text/plain'],
    { bodyLimit: defaultBodyLimit },
    lenientJson,
  );
}
