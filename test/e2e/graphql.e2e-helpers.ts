import type { RunningSystem } from '../support/system.js';

export interface GraphqlReply<T> {
  status: number;
  body: { data?: T | null; errors?: { message: string; extensions?: { code?: string } }[] };
}

/**
 * A GraphQL caller with one API key: `{"query": ...}` as the SDKs send it (the key as `?api_key=`), or with
 * `variables` (the command-line client's form, the key as a bearer).
 */
export function graphqlClient(system: RunningSystem, key: string) {
  return async function graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<GraphqlReply<T>> {
    const url = new URL('/graphql', system.url('gateway'));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (variables) headers.authorization = `Bearer ${key}`;
    else url.searchParams.set('api_key', key);
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(variables ? { query, variables } : { query }),
    });
    return { status: response.status, body: (await response.json()) as GraphqlReply<T>['body'] };
  };
}

export type Graphql = ReturnType<typeof graphqlClient>;

/** The `extensions.code` of the first GraphQL error, or undefined when the answer has none. */
export function errorCode<T>(reply: GraphqlReply<T>): string | undefined {
  return reply.body.errors?.[0]?.extensions?.code;
}
