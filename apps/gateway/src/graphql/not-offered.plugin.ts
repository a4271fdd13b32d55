import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import { Kind, type DocumentNode, type FieldNode, type GraphQLFormattedError } from 'graphql';

/**
 * Root fields of RunPod's GraphQL API that name services of RunPod's cloud, which a self-hosted deployment does not
 * offer: field → why. The schema has no such fields (no fake types); a document asking for one is answered by
 * `notOfferedPlugin` below instead of graphql-js's "Cannot query field".
 */
export const NOT_OFFERED_FIELDS: Readonly<Record<string, string>> = {
  allAiApiPublicConfigs: "RunPod's public endpoints (its hosted model APIs) are a service of RunPod's cloud",
  listings: "the RunPod Hub (its catalog of GitHub repositories to deploy) is a service of RunPod's cloud",
};

export const NOT_OFFERED_CODE = 'NOT_OFFERED';

/** The not-offered fields a document selects at the root of one of its operations. */
export function notOfferedFields(document: DocumentNode): FieldNode[] {
  return document.definitions.flatMap((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION
      ? definition.selectionSet.selections.filter(
          (s): s is FieldNode => s.kind === Kind.FIELD && Object.hasOwn(NOT_OFFERED_FIELDS, s.name.value),
        )
      : [],
  );
}

function at(error: GraphQLFormattedError, field: FieldNode): boolean {
  const location = error.locations?.[0];
  const start = field.loc?.startToken;
  return !!location && !!start && location.line === start.line && location.column === start.column;
}

/** The answer's errors with each not-offered field's validation errors replaced by one NOT_OFFERED error, first. */
export function withNotOffered(
  errors: readonly GraphQLFormattedError[],
  fields: readonly FieldNode[],
): GraphQLFormattedError[] {
  const notOffered = fields.map((field) => {
    const start = field.loc?.startToken;
    return {
      message:
        `${field.name.value} is not offered by a self-hosted deployment: ` +
        `${NOT_OFFERED_FIELDS[field.name.value]}`,
      ...(start ? { locations: [{ line: start.line, column: start.column }] } : {}),
      extensions: { code: NOT_OFFERED_CODE, field: field.name.value },
    };
  });
  return [...notOffered, ...errors.filter((error) => !fields.some((field) => at(error, field)))];
}

/**
 * A document that asks for a not-offered root field fails validation (the schema lacks it); the answer then says
 * why, in a NOT_OFFERED error first, and is HTTP 200 when nothing else in the document was wrong, like any other
 * refusal of a valid request (clients such as the MCP server print `errors[0].message` only from a 2xx).
 */
export function notOfferedPlugin(): ApolloServerPlugin {
  return {
    requestDidStart() {
      return Promise.resolve({
        willSendResponse({ document, response }: GraphQLRequestContextWillSendResponse<object>) {
          const body = response.body;
          if (!document || body.kind !== 'single' || !body.singleResult.errors) return Promise.resolve();
          const fields = notOfferedFields(document);
          if (!fields.length || 'data' in body.singleResult) return Promise.resolve();
          const errors = withNotOffered(body.singleResult.errors, fields);
          body.singleResult.errors = errors;
          if (errors.every((error) => error.extensions?.code === NOT_OFFERED_CODE)) {
            response.http.status = 200;
          }
          return Promise.resolve();
        },
      });
    },
  };
}
