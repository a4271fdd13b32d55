import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JobLimits, type Actor, type JobView } from '@app/contracts';
import { AccountsService, type Principal } from '../accounts/accounts.service.js';
import { actorOf, type AuthRule } from '../auth/auth.decorators.js';
import { authenticateRequest, authorize, type HttpRequest } from '../auth/auth.guard.js';
import { checkParameters } from '../edge/request-shape.pipe.js';
import { RateLimiter } from '../rate-limit/rate-limiter.service.js';
import { abortOnClose } from './http-abort.js';
import { JobsService } from './jobs.service.js';
import { intParam } from './wait-param.js';

/** The queue routes' key rule: `@Auth` on JobsController says the same. */
export const QUEUE_AUTH_RULE: AuthRule = { key: 'raw-or-bearer', endpointParam: 'endpointId' };

/** `?ttl=` of GET /status: no default, so only an explicit value changes a job's expiry (a read stays a read). */
export const TTL_PARAM = { min: JobLimits.ttlMs.min, max: JobLimits.ttlMs.max };

/** The request of a job read route: `/v2/:endpointId/status/:jobId` and `/status-sync/:jobId`. */
type ReadRequest = FastifyRequest<{ Params: { endpointId: string; jobId: string } }>;

interface Admitted {
  actor: Actor;
  endpointId: string;
  jobId: string;
  /** The route's one query parameter as sent (`ttl` or `wait`). */
  query: unknown;
}

/**
 * GET /status and /status-sync served on Fastify routes of their own (job-read-routes.setup.ts), the clients'
 * polling loop, without Nest's guard, pipe, parameter and filter pipeline: what that pipeline did for these two
 * routes is written out here, in its order (docs/adr/0033). AuthGuard: the key (401, no RateLimit headers), the
 * `queue.status` limit of the user and endpoint (headers, 429), the scope (403); then the global RequestShapePipe
 * on each parameter in the handler's order (400); then what the controller's handler does. The ValidationPipe
 * changes nothing here (string and untyped parameters pass through it as they are).
 */
@Injectable()
export class JobReads {
  constructor(
    private readonly accounts: AccountsService,
    private readonly rateLimits: RateLimiter,
    private readonly jobs: JobsService,
  ) {}

  /** Answered without a promise when every answer it needs is cached (the key, the counter, the job's view). */
  status(request: ReadRequest, reply: FastifyReply): JobView | Promise<JobView> {
    const read = ({ actor, endpointId, jobId, query }: Admitted) =>
      this.jobs.status(endpointId, jobId, intParam('ttl', query, TTL_PARAM), actor);
    const admitted = this.admit(request, reply, 'ttl');
    return admitted instanceof Promise ? admitted.then(read) : read(admitted);
  }

  async statusSync(request: ReadRequest, reply: FastifyReply): Promise<JobView> {
    const { actor, endpointId, jobId, query } = await this.admit(request, reply, 'wait');
    const waitMs = intParam('wait', query, JobLimits.statusSyncWaitMs)!;
    return this.jobs.statusSync(endpointId, jobId, waitMs, actor, abortOnClose(reply));
  }

  /** The checks of AuthGuard and the pipes, in their order; without a promise when the key and counter are known. */
  private admit(request: ReadRequest, reply: FastifyReply, queryName: string): Admitted | Promise<Admitted> {
    const http = request as unknown as HttpRequest;
    const found = authenticateRequest(this.accounts, http, QUEUE_AUTH_RULE);
    return found instanceof Promise
      ? found.then((principal) => this.limit(request, reply, queryName, principal))
      : this.limit(request, reply, queryName, found);
  }

  private limit(
    request: ReadRequest,
    reply: FastifyReply,
    queryName: string,
    principal: Principal,
  ): Admitted | Promise<Admitted> {
    const http = request as unknown as HttpRequest;
    http.principal = principal;
    // Counted once authenticated, before the scope check: 403s carry the RateLimit headers, 401s none.
    const limited = this.rateLimits.enforceRoute('queue.status', principal, request.params.endpointId, reply);
    return limited
      ? limited.then(() => this.check(request, queryName, principal))
      : this.check(request, queryName, principal);
  }

  private check(request: ReadRequest, queryName: string, principal: Principal): Admitted {
    authorize(principal, QUEUE_AUTH_RULE, request as unknown as HttpRequest);
    const { endpointId, jobId } = request.params;
    const query = (request.query as Record<string, unknown>)[queryName];
    checkParameters(endpointId, 'endpointId');
    checkParameters(jobId, 'jobId');
    checkParameters(query, queryName);
    return { actor: actorOf(principal), endpointId, jobId, query };
  }
}
