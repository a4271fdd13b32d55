import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';
import { type GraphQLResolveInfo, OperationTypeNode } from 'graphql';
import type { AccountResource, Actor } from '@app/contracts';
import type { Principal } from '../accounts/accounts.service.js';
import { authorizeRole } from './role-check.js';

/**
 * How a route family takes its key, as the interface says: `bearer` (/v2 REST, /v1), `raw-or-bearer` (queue
 * routes: `authorization: <key>` or `Bearer <key>`), `query-or-bearer` (GraphQL: `?api_key=` or bearer).
 */
export type KeyTransport = 'bearer' | 'raw-or-bearer' | 'query-or-bearer';

export interface AuthRule {
  key: KeyTransport;
  /** Read or write; by default GET/HEAD read and everything else writes. */
  access?: 'read' | 'write';
  /** Route parameter naming the serverless endpoint, for keys restricted to endpoints. */
  endpointParam?: string;
  /** A worker route (job-take, job-done, ping, ...): keys of scope `worker` are accepted for their endpoint. */
  worker?: boolean;
  /**
   * Manages the endpoint rather than using its queue (its webhook signing secret): keys of scope `endpoints`, which
   * only submit and read jobs, are refused even for their own endpoints.
   */
  manage?: boolean;
  /**
   * What the route acts on, for the role check of team keys (ROLE_GRANTS). Usually given once per controller or
   * resolver with `@Resource(...)`; a rule's own wins.
   */
  resource?: AccountResource;
  /** Only keys of scope `operator` (the deployment's operators: every team and user). */
  operator?: boolean;
}

export const AUTH_RULE = Symbol('gateway:auth-rule');

export const Auth = (rule: AuthRule): MethodDecorator & ClassDecorator => SetMetadata(AUTH_RULE, rule);

export const RESOURCE = Symbol('gateway:resource');

/** What the routes of a controller or resolver (or one route) act on, for the role × resource matrix. */
export const Resource = (resource: AccountResource): MethodDecorator & ClassDecorator =>
  SetMetadata(RESOURCE, resource);

export interface AuthenticatedRequest {
  principal?: Principal;
}

/** The account acts; for a team, the member who acted is named too (docs/adr/0034-teams.md). */
export function actorOf(principal: Principal): Actor {
  return principal.account.kind === 'team'
    ? { userId: principal.account.id, memberId: principal.user.id, keyId: principal.key.id, kind: 'user' }
    : { userId: principal.user.id, keyId: principal.key.id, kind: 'user' };
}

/** The HTTP request behind a REST route or a GraphQL resolver (Apollo's context carries it as `req`). */
export function httpRequestOf<T>(context: ExecutionContext): T {
  if (context.getType<GqlContextType>() === 'graphql') {
    return GqlExecutionContext.create(context).getContext<{ req: T }>().req;
  }
  return context.switchToHttp().getRequest<T>();
}

/** For a GraphQL resolver, what its operation does (a query reads, a mutation writes); undefined for REST. */
export function graphqlAccess(context: ExecutionContext): 'read' | 'write' | undefined {
  if (context.getType<GqlContextType>() !== 'graphql') return undefined;
  const info = GqlExecutionContext.create(context).getInfo<GraphQLResolveInfo>();
  return info.operation.operation === OperationTypeNode.QUERY ? 'read' : 'write';
}

/**
 * The acting account of the request, as commands and queries carry it. A GraphQL field that reads another resource
 * than its operation names it (`@CurrentActor('pods')`): the holder's role must allow reading it.
 */
export const CurrentActor = createParamDecorator(
  (resource: AccountResource | undefined, context: ExecutionContext): Actor => {
    const request = httpRequestOf<AuthenticatedRequest>(context);
    if (!request.principal) throw new Error('CurrentActor used on a route without authentication');
    if (resource) authorizeRole(request.principal, resource, 'read');
    return actorOf(request.principal);
  },
);

/** The authenticated key and its user, for a handler whose answer depends on the key's scope. */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const request = httpRequestOf<AuthenticatedRequest>(context);
  if (!request.principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return request.principal;
});
