import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JobLimits, type Actor, type JobView } from '@app/contracts';
import { AccountsService } from '../accounts/accounts.service.js';
import { actorOf } from '../auth/auth.decorators.js';
import { admitRequest } from '../auth/auth.guard.js';
import { ConsoleSessions } from '../sso/console-sessions.service.js';
import { sendProblem } from '../edge/problem.filter.js';
import { checkParameters } from '../edge/request-shape.pipe.js';
import type { IntLimits, OperationMetadata } from '../openapi/openapi.decorators.js';
import type { RateLimitPolicyName } from '../rate-limit-policies.js';
import { RateLimiter } from '../rate-limit/rate-limiter.service.js';
import { abortOnClose } from './http-abort.js';
import { QUEUE_AUTH_RULE } from './jobs.controller.js';
import { JobsService } from './jobs.service.js';
import { intParam } from './wait-param.js';

/** What one job read answers with, once admitted and its parameters checked. */
interface JobReadCall {
  endpointId: string;
  jobId: string;
  /** The route's query parameter, read with `intParam`. */
  value: number | undefined;
  actor: Actor;
  reply: FastifyReply;
}

/** A job read route, defined once: what Fastify serves (main.ts) and what the OpenAPI document says of it. */
export interface JobReadRoute {
  url: string;
  /** The operation's id in the OpenAPI document (its name from when it was a JobsController method). */
  operationId: string;
  operation: OperationMetadata;
  query: { name: string; limits: IntLimits; description: string };
  read(jobs: JobsService, call: JobReadCall): Promise<JobView>;
}

/** The policy both job reads are counted under (per user and endpoint), as GET /health is. */
export const JOB_READ_POLICY: RateLimitPolicyName = 'queue.status';

export const JOB_READ_ROUTES: readonly JobReadRoute[] = [
  {
    url: '/v2/:endpointId/status/:jobId',
    operationId: 'JobsController.status',
    operation: { summary: "Get a job's status", returns: 'JobView' },
    query: {
      name: 'ttl',
      // No default: only an explicit value changes a job's expiry (a read stays a read).
      limits: { min: JobLimits.ttlMs.min, max: JobLimits.ttlMs.max },
      description: 'Keep the job this long from now, in milliseconds; without it the read changes nothing',
    },
    read: (jobs, { endpointId, jobId, value, actor }) => jobs.status(endpointId, jobId, value, actor),
  },
  {
    url: '/v2/:endpointId/status-sync/:jobId',
    operationId: 'JobsController.statusSync',
    operation: {
      summary: "Wait for a job's result",
      returns: 'JobView',
      description: 'Long-polls until the job finishes or `wait` runs out, then answers like /status.',
    },
    query: { name: 'wait', limits: JobLimits.statusSyncWaitMs, description: 'Longest wait, in milliseconds' },
    read: (jobs, { endpointId, jobId, value, actor, reply }) =>
      jobs.statusSync(endpointId, jobId, value!, actor, abortOnClose(reply)),
  },
];

type JobReadRequest = FastifyRequest<{
  Params: { endpointId: string; jobId: string };
  Querystring: Record<string, unknown>;
}>;

/**
 * Registers GET /status and /status-sync, the clients' polling loop, on Fastify itself (called from main.ts,
 * before the app listens) rather than as JobsController methods: Nest's per-request pipeline (execution context,
 * guard, interceptors, two global pipes on each parameter, parameter decorators, filter) cost more than the read
 * of a finished job from the read model, about half the route's throughput (docs/adr/0033). What that pipeline
 * does for a route is done here by the same code: `admitRequest` (AuthGuard's key, limit and scope, in its
 * order) under the queue routes' rule, `checkParameters` (RequestShapePipe's 400) on each parameter in the order
 * a handler takes them, `intParam` (422), and `sendProblem` (ProblemFilter's problem+json). A global enhancer
 * added to Nest later does not reach these two routes; test/e2e/job-reads.e2e-spec.ts compares their answers
 * with those of the Nest routes.
 */
export function configureJobReadRoutes(app: NestFastifyApplication): void {
  const accounts = app.get(AccountsService);
  const rateLimits = app.get(RateLimiter);
  const sessions = app.get(ConsoleSessions);
  const jobs = app.get(JobsService);
  const logger = new Logger('edge');

  const answer = async (route: JobReadRoute, request: JobReadRequest, reply: FastifyReply) => {
    const { endpointId, jobId } = request.params;
    const principal = await admitRequest(
      accounts,
      request,
      QUEUE_AUTH_RULE,
      (admitted) => rateLimits.enforceRoute(JOB_READ_POLICY, admitted, endpointId, reply),
      sessions,
    );
    const raw = request.query[route.query.name];
    checkParameters(endpointId, 'endpointId');
    checkParameters(jobId, 'jobId');
    checkParameters(raw, route.query.name);
    const value = intParam(route.query.name, raw, route.query.limits);
    return route.read(jobs, { endpointId, jobId, value, actor: actorOf(principal), reply });
  };

  const fastify = app.getHttpAdapter().getInstance();
  for (const route of JOB_READ_ROUTES) {
    // Not an async handler: it answers through `reply` (Fastify reports an async handler resolving to undefined).
    fastify.get(route.url, (request: JobReadRequest, reply: FastifyReply): void => {
      answer(route, request, reply).then(
        (view) => void reply.send(view),
        (error: unknown) => sendProblem(reply, error, logger),
      );
    });
  }
}
