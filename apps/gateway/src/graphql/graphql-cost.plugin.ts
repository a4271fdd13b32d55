import type { ApolloServerPlugin } from '@apollo/server';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { type DocumentNode, type GraphQLSchema, Kind, type OperationDefinitionNode, validate } from 'graphql';
import type { GatewayGraphqlContext } from '../edge/graphql-context.js';
import { COST_WEIGHTS } from './graphql-limits.js';

/** Costs by operation node: Apollo keeps validated documents (and so their nodes) for queries sent again. */
const costs = new WeakMap<OperationDefinitionNode, number>();

/**
 * The cost of the one operation that runs, by the same rule (and weights) that limits it: the rule measures
 * every operation of a document, so it is given a document of that operation and the fragments.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): number {
  const known = costs.get(operation);
  if (known !== undefined) return known;
  let cost = 0;
  const alone: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: document.definitions.filter(
      (definition) => definition === operation || definition.kind === Kind.FRAGMENT_DEFINITION,
    ),
  };
  const measure = costLimitRule({
    ...COST_WEIGHTS,
    maxCost: Number.MAX_SAFE_INTEGER,
    propagateOnRejection: false,
    onAccept: [(_context, details: { n: number }) => (cost = details.n)],
  });
  validate(schema, alone, [measure]);
  costs.set(operation, cost);
  return cost;
}

/**
 * Puts the operation's cost in the request's context once Apollo knows which operation runs (after validation,
 * before execution), for the rate limiter to count it in units (RateLimiter.enforce).
 */
export function graphqlCostPlugin(): ApolloServerPlugin<GatewayGraphqlContext> {
  return {
    requestDidStart() {
      return Promise.resolve({
        didResolveOperation({ schema, document, operation, contextValue }) {
          if (operation) contextValue.cost = operationCost(schema, document, operation);
          return Promise.resolve();
        },
      });
    },
  };
}
