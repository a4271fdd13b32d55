import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloServer } from '@apollo/server';
import { buildSchema } from 'graphql';
import { notOfferedPlugin } from './not-offered.plugin.js';

const schema = buildSchema('type Query { gpuTypes: [String!]! }');
const rootValue = { gpuTypes: () => ['A4000'] };

describe('not-offered root fields', () => {
  let server: ApolloServer;

  beforeAll(async () => {
    server = new ApolloServer({ schema, rootValue, plugins: [notOfferedPlugin()] });
    await server.start();
  });

  afterAll(() => server.stop());

  const run = async (query: string) => {
    const response = await server.executeOperation({ query });
    if (response.body.kind !== 'single') throw new Error('not a single result');
    return { status: response.http.status, result: response.body.singleResult };
  };

  it('answers NOT_OFFERED naming the field, and no "Cannot query field" error, with 200', async () => {
    // The MCP server's list-public-endpoints document (node_modules/@runpod/mcp-server/dist/stdio.mjs).
    const { status, result } = await run('query { allAiApiPublicConfigs { id aiApiId modelName isLive } }');
    expect(status).toBe(200);
    expect(result.errors).toEqual([
      {
        message: expect.stringMatching(/^allAiApiPublicConfigs is not offered by a self-hosted deployment: /),
        locations: [{ line: 1, column: 9 }],
        extensions: { code: 'NOT_OFFERED', field: 'allAiApiPublicConfigs' },
      },
    ]);
    expect(result).not.toHaveProperty('data');
  });

  it('keeps the document’s other errors after it, and their 400', async () => {
    const { status, result } = await run('query { listings(input: {}) { id } nope }');
    expect(status).toBe(400);
    expect(result.errors!.map((e) => e.extensions?.code)).toEqual([
      'NOT_OFFERED',
      'GRAPHQL_VALIDATION_FAILED',
    ]);
    expect(result.errors![1].message).toContain('"nope"');
  });

  it('leaves every other document alone', async () => {
    expect(await run('query { gpuTypes }')).toEqual({
      status: undefined,
      result: { data: { gpuTypes: ['A4000'] } },
    });
    const unknown = await run('query { nope }');
    expect(unknown.status).toBe(400);
    expect(unknown.result.errors![0].message).toMatch(/^Cannot query field "nope"/);
  });
});
