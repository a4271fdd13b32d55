import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The context of one GraphQL request (graphql.module.ts builds it from Fastify's request and reply): what its
 * resolvers, and the guard before each of them, share.
 */
export interface GatewayGraphqlContext {
  req: FastifyRequest;
  /** For response headers set during execution (RateLimit, Retry-After); Apollo writes the body. */
  reply: FastifyReply;
  /** The operation's cost (graphql-cost.plugin.ts), set once Apollo has resolved which operation runs. */
  cost?: number;
  /**
   * The operation's rate-limit verdict: decided by the guard of its first resolver, awaited by the others, so an
   * operation counts once however many top-level fields it selects.
   */
  rateLimit?: Promise<void>;
}
