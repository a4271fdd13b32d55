import type { RawReply } from './http.js';

/**
 * Hostile GraphQL documents for POST /graphql: amplification (aliases, depth, tokens, directives, cost), cycles,
 * introspection, and malformed envelopes. Each must be refused with a 4xx carrying GraphQL `errors` (or the
 * edge's problem+json for what never reaches GraphQL), quickly, and without a 5xx.
 */
export interface GraphqlCase {
  what: string;
  /** The raw request body. */
  body: string;
  contentType?: string;
}

const query = (document: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ query: document, ...extra });

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');

export function graphqlCases(endpointIdOfA: string): GraphqlCase[] {
  const nested = (levels: number) => `${'... on Query { '.repeat(levels)}__typename${' }'.repeat(levels)}`;
  return [
    { what: '2000 aliases', body: query(`query { ${repeat(2000, (i) => `a${i}: myself { id }`)} }`) },
    {
      what: '16 aliases (one past the limit)',
      body: query(`query { ${repeat(16, (i) => `a${i}: myself { id }`)} }`),
    },
    { what: '200 nested inline fragments', body: query(`query { ${nested(200)} }`) },
    { what: '20,000 tokens', body: query(`query { ${repeat(10_000, () => '__typename')} }`) },
    {
      what: '500 directives',
      body: query(`query { myself ${repeat(500, () => '@include(if: true)')} { id } }`),
    },
    {
      what: 'a fragment cycle',
      body: query('fragment A on Query { ...B } fragment B on Query { ...A } query { ...A }'),
    },
    { what: 'an introspection query', body: query('query { __schema { types { name fields { name } } } }') },
    { what: 'a type introspection', body: query('query { __type(name: "Query") { fields { name } } }') },
    { what: 'an unknown field', body: query('query { secrets { value } }') },
    { what: 'a syntax error', body: query('query { myself { id ') },
    { what: 'an empty document', body: query('') },
    { what: 'a query that is a number', body: JSON.stringify({ query: 42 }) },
    { what: 'variables that are a string', body: query('query { myself { id } }', { variables: 'x' }) },
    {
      what: 'two operations and no operationName',
      body: query('query A { myself { id } } query B { myself { id } }'),
    },
    { what: 'an unknown operationName', body: query('query A { myself { id } }', { operationName: 'B' }) },
    {
      what: 'NUL in a string argument',
      body: query(`mutation { deleteEndpoint(id: "${endpointIdOfA}\\u0000") }`),
    },
    { what: 'a body that is not JSON', body: '{"query": "query { myself { id } }"' },
    { what: 'a JSON array (batching is off)', body: JSON.stringify([{ query: 'query { myself { id } }' }]) },
    {
      what: 'a form body',
      body: 'query=%7Bmyself%7Bid%7D%7D',
      contentType: 'application/x-www-form-urlencoded',
    },
  ];
}

/**
 * A refusal as the interface gives it: a 4xx, as GraphQL `errors` (HTTP 200 only for an execution error, which
 * must then carry them) or as the edge's problem+json for a body that never reached GraphQL.
 */
export function judgeGraphql(reply: RawReply): string | undefined {
  if (reply.status === 0) return `no answer (${reply.error ?? 'connection closed'})`;
  if (reply.status >= 500) return `${reply.status}`;
  if (reply.status !== 200 && (reply.status < 400 || reply.status > 499)) return `status ${reply.status}`;
  let body: { errors?: unknown[]; status?: number };
  try {
    body = JSON.parse(reply.text) as typeof body;
  } catch {
    return 'a body that is not JSON';
  }
  if (reply.contentType.startsWith('application/problem+json')) {
    return reply.status !== 200 && body.status === reply.status ? undefined : 'problem status differs';
  }
  if (!Array.isArray(body.errors) || !body.errors.length) return 'accepted (no errors)';
  if (JSON.stringify(body).includes('stacktrace')) return 'a stack trace';
  return undefined;
}
