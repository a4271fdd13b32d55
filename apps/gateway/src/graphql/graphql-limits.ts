import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { GraphQLArmorRejectCallback } from '@escape.tech/graphql-armor-types';
import { GraphQLError, type GraphQLFormattedError, type ValidationRule } from 'graphql';

/**
 * The bounds on one GraphQL document (docs/adr/0014-edge-hardening.md), checked before anything runs: tokens
 * while parsing (graphql-js's own `maxTokens`, what graphql-armor's max-tokens does for other servers), then
 * aliases, depth, directives and cost as validation rules (graphql-armor). A document past one is answered
 * HTTP 400, `extensions.code` GRAPHQL_PARSE_FAILED (tokens) or GRAPHQL_VALIDATION_FAILED (the others) and
 * `extensions.limit` naming the bound.
 */
export interface GraphqlLimits {
  maxAliases: number;
  maxDepth: number;
  maxDirectives: number;
  maxCost: number;
}

export type GraphqlLimitName = 'tokens' | 'aliases' | 'depth' | 'directives' | 'cost';

/**
 * Weights of graphql-armor's cost (its defaults, spelled out because the rate limiter counts units of the same
 * cost, graphql-cost.plugin.ts): 1 per scalar field, 2 per object field, a level's children weigh 1.5 times.
 */
export const COST_WEIGHTS = { scalarCost: 1, objectCost: 2, depthCostFactor: 1.5 } as const;

/** graphql-armor prefixes every refusal with "Syntax Error: ", which only the token limit is. */
const ARMOR_PREFIX = /^Syntax Error: /;

function refuse(limit: GraphqlLimitName): GraphQLArmorRejectCallback {
  return (context, error) => {
    context?.reportError(
      new GraphQLError(`query refused: ${error.message.replace(ARMOR_PREFIX, '')}`, {
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit },
      }),
    );
  };
}

/** Reported to the validation context (so Apollo answers 400), never thrown (which it would answer 500). */
const reported = (limit: GraphqlLimitName) => ({
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [refuse(limit)],
});

export function limitRules(limits: GraphqlLimits): ValidationRule[] {
  return [
    // `__typename` aliases stay free (graphql-armor's allow-list): they run no resolver.
    maxAliasesRule({ n: limits.maxAliases, ...reported('aliases') }),
    maxDepthRule({ n: limits.maxDepth, ...reported('depth') }),
    maxDirectivesRule({ n: limits.maxDirectives, ...reported('directives') }),
    costLimitRule({ maxCost: limits.maxCost, ...COST_WEIGHTS, ...reported('cost') }),
  ];
}

/** graphql-js's words when `maxTokens` stops the parser (sic: "more that"). */
const TOO_MANY_TOKENS = /Document contains more that? (\d+) tokens/;

/**
 * Apollo's `formatError`: the token refusal in the words of the others, and no `stacktrace` whatever the settings
 * (`includeStacktraceInErrorResponses` is off too; this holds if a later change turns it on).
 */
export function formatGraphqlError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const { stacktrace: _stack, ...extensions } = formatted.extensions ?? {};
  const tokens = TOO_MANY_TOKENS.exec(formatted.message);
  if (!tokens) return { ...formatted, extensions };
  return {
    ...formatted,
    message: `query refused: Token limit of ${tokens[1]} exceeded; parsing aborted.`,
    extensions: { ...extensions, limit: 'tokens' satisfies GraphqlLimitName },
  };
}
