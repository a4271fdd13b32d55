import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError, ErrorCode } from '@app/contracts';
import { requestContext } from '@app/observability';
import { IS_PUBLIC } from '@app/platform';
import { AccountsService, type Principal } from '../accounts/accounts.service.js';
import type { Authentication } from '../accounts/principal-cache.js';
import { HandlerMetadata } from '../edge/handler-metadata.js';
import { authorizeRole } from './role-check.js';
import { RateLimiter } from '../rate-limit/rate-limiter.service.js';
import { ConsoleSessions } from '../sso/console-sessions.service.js';
import {
  AUTH_RULE,
  RESOURCE,
  type AuthRule,
  type AuthenticatedRequest,
  graphqlAccess,
  httpRequestOf,
} from './auth.decorators.js';

export interface HttpRequest extends AuthenticatedRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  params: Record<string, string | undefined>;
}

const DEFAULT_RULE: AuthRule = { key: 'bearer' };

function unauthenticated(detail: string): DomainError {
  return new DomainError(ErrorCode.Unauthenticated, detail);
}

/** Reads the key the way the route family takes it; null when none was sent. */
export function presentedKey(request: HttpRequest, rule: AuthRule): string | null {
  const header = request.headers.authorization;
  const authorization = Array.isArray(header) ? header[0] : header;
  if (rule.key === 'query-or-bearer' && typeof request.query.api_key === 'string' && request.query.api_key) {
    return request.query.api_key;
  }
  if (authorization === undefined || authorization.trim() === '') return null;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer) return bearer[1];
  if (
    rule.key === 'raw-or-bearer' &&
    /^\S+$/.test(authorization.trim()) &&
    !/^Bearer$/i.test(authorization.trim())
  ) {
    return authorization.trim();
  }
  throw unauthenticated(
    rule.key === 'raw-or-bearer'
      ? "malformed Authorization header: send 'Authorization: <API key>' or 'Authorization: Bearer <API key>'"
      : "malformed Authorization header: send 'Authorization: Bearer <API key>'",
  );
}

/**
 * Checks what the key's scope allows on this route, then what the holder's role allows on its resource (a team
 * key's; on their own account a user is `owner`); throws 403 when either does not.
 */
export function authorize(principal: Principal, rule: AuthRule, request: HttpRequest): void {
  const access = rule.access ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write');
  if (rule.operator && principal.key.scope !== 'operator') {
    throw new DomainError(
      ErrorCode.Forbidden,
      "this route is the deployment operators': it takes an operator key",
    );
  }
  authorizeScope(principal, rule, request, access);
  authorizeRole(principal, rule.resource ?? (rule.worker ? 'requests' : undefined), access);
}

function authorizeScope(
  principal: Principal,
  rule: AuthRule,
  request: HttpRequest,
  access: 'read' | 'write',
): void {
  switch (principal.key.scope) {
    case 'full':
    case 'operator':
      return;
    case 'read':
      if (access === 'read') return;
      throw new DomainError(ErrorCode.Forbidden, 'this API key is read-only');
    case 'endpoints': {
      const endpointId = rule.endpointParam ? request.params[rule.endpointParam] : undefined;
      // A client key of some endpoints submits and reads their jobs; it never acts as one of their workers.
      if (!rule.worker && !rule.manage && endpointId && principal.key.endpointIds.includes(endpointId)) {
        return;
      }
      throw new DomainError(
        ErrorCode.Forbidden,
        `this API key may only use the job routes of endpoint(s) ${principal.key.endpointIds.join(', ')}`,
      );
    }
    case 'worker': {
      const endpointId = rule.endpointParam ? request.params[rule.endpointParam] : undefined;
      if (rule.worker && endpointId && principal.key.endpointIds.includes(endpointId)) return;
      throw new DomainError(
        ErrorCode.Forbidden,
        `this API key belongs to the workers of endpoint ${principal.key.endpointIds.join(', ')}: ` +
          "it may only take and report that endpoint's jobs",
      );
    }
  }
}

/**
 * The caller's principal from the key the route family takes (401 missing, malformed, unknown or revoked), with
 * the user put in the request's log context. Only a request without a key is looked at for a console session
 * cookie (docs/adr/0036): a key's path is the one it always was, and a key wins over a cookie sent with it.
 */
async function authenticateRequest(
  accounts: AccountsService,
  request: HttpRequest,
  rule: AuthRule,
  sessions?: ConsoleSessions,
): Promise<Principal> {
  const key = presentedKey(request, rule);
  if (!key) {
    // 401 for an ended session, 403 for a mutation without its CSRF token (ConsoleSessions.authenticate).
    const session = sessions ? await sessions.authenticate(request) : null;
    if (session) {
      requestContext.identify(session.user.id);
      return session;
    }
    throw unauthenticated(
      rule.key === 'query-or-bearer'
        ? 'missing API key: pass ?api_key=<key> or Authorization: Bearer <key>'
        : 'missing API key: send Authorization: Bearer <key>',
    );
  }
  return admitted(await accounts.authenticate(key));
}

/** The principal of a key's authentication, or the 401 that says why there is none. */
export function admitted(principal: Authentication): Principal {
  if (principal === 'unknown') throw unauthenticated('invalid API key');
  if (principal === 'revoked') throw unauthenticated('this API key has been revoked');
  if (principal === 'disabled') throw unauthenticated("this API key's user is disabled");
  requestContext.identify(principal.user.id);
  return principal;
}

/** Authenticates every non-public route (401) and checks the key's scope against it (403). */
@Injectable()
export class AuthGuard implements CanActivate {
  /** The route's rule, or null for a public route. */
  private readonly rules: HandlerMetadata<AuthRule | null>;

  constructor(
    reflector: Reflector,
    private readonly accounts: AccountsService,
    private readonly rateLimits: RateLimiter,
    private readonly sessions: ConsoleSessions,
  ) {
    this.rules = new HandlerMetadata((targets) => {
      if (reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return null;
      const rule = reflector.getAllAndOverride<AuthRule>(AUTH_RULE, targets) ?? DEFAULT_RULE;
      const resource = rule.resource ?? reflector.getAllAndOverride<AuthRule['resource']>(RESOURCE, targets);
      return resource ? { ...rule, resource } : rule;
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.rules.of(context);
    if (!rule) return true;
    await admitRequest(
      this.accounts,
      httpRequestOf<HttpRequest>(context),
      // GraphQL is one POST route: a query reads, a mutation writes.
      { ...rule, access: rule.access ?? graphqlAccess(context) },
      (principal) => this.rateLimits.enforce(context, principal, rule),
      this.sessions,
    );
    return true;
  }
}

/**
 * The edge's admission of a request, in its one order: the key or, without one, the console session (401, and
 * 403 for a session's mutation without its CSRF token, before anything is counted), then `limit`
 * (the route's rate-limit policy: the RateLimit headers, 429), then the key's scope (403, so it carries the
 * headers). AuthGuard runs it for every Nest route; the job reads registered on Fastify run it too
 * (jobs/job-read-routes.setup.ts), so both answer alike. Sets `request.principal`.
 */
export async function admitRequest(
  accounts: AccountsService,
  request: HttpRequest,
  rule: AuthRule,
  limit: (principal: Principal) => void | Promise<void>,
  sessions?: ConsoleSessions,
): Promise<Principal> {
  const principal = await authenticateRequest(accounts, request, rule, sessions);
  request.principal = principal;
  await limit(principal);
  authorize(principal, rule, request);
  return principal;
}
