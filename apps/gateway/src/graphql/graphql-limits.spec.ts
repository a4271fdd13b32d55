import { describe, expect, it } from '@jest/globals';
import { buildSchema, type OperationDefinitionNode, parse, validate } from 'graphql';
import { operationCost } from './graphql-cost.plugin.js';
import { formatGraphqlError, limitRules } from './graphql-limits.js';

const schema = buildSchema(`
  type Query { myself: User }
  type User { id: ID! name: String endpoints: [Endpoint!]! }
  type Endpoint { id: ID! name: String pods: [Pod!]! }
  type Pod { id: ID! status: String }
`);

const LIMITS = { maxAliases: 3, maxDepth: 4, maxDirectives: 2, maxCost: 20 };

function refusals(document: string) {
  return validate(schema, parse(document), limitRules(LIMITS)).map((error) => ({
    message: error.message,
    extensions: error.extensions,
  }));
}

describe('limitRules', () => {
  it('lets a document within every limit through', () => {
    expect(refusals('{ a: myself { id } b: myself { id } c: myself { endpoints { id } } }')).toEqual([]);
  });

  it('refuses too many aliases, naming the limit, without "Syntax Error"', () => {
    expect(refusals('{ a: myself { id } b: myself { id } c: myself { id } d: myself { id } }')).toEqual([
      {
        message: 'query refused: Aliases limit of 3 exceeded, found 4.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'aliases' },
      },
    ]);
  });

  it('leaves __typename aliases free (they run nothing)', () => {
    expect(refusals('{ a: __typename b: __typename c: __typename d: __typename }')).toEqual([]);
  });

  it('refuses too deep a document, fragments included', () => {
    expect(refusals('{ myself { endpoints { pods { id } } } }')).toEqual([]);
    expect(refusals('{ myself { ...U } } fragment U on User { endpoints { pods { id } } }')).toContainEqual({
      message: 'query refused: Query depth limit of 4 exceeded, found 6.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'depth' },
    });
  });

  it('refuses too many directives', () => {
    const [refusal] = refusals(
      '{ myself { id @skip(if: false) name @skip(if: false) x: id @skip(if: false) } }',
    );
    expect(refusal).toEqual({
      message: 'query refused: Directives limit of 2 exceeded, found 3.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'directives' },
    });
  });

  it('refuses too costly a document', () => {
    expect(refusals('{ myself { endpoints { id } } }')).toEqual([]);
    // myself 2 + 1.5 * (endpoints 2 + 1.5 * (id 1 + name 1 + pods (2 + 1.5 * 2))) = 20.75
    expect(refusals('{ myself { endpoints { id name pods { id status } } } }')).toEqual([
      {
        message: 'query refused: Query Cost limit of 20 exceeded, found 20.75.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'cost' },
      },
    ]);
  });
});

describe('operationCost', () => {
  it('measures the operation that runs, with its fragments, by the rule that limits it', () => {
    const document = parse(`
      query Cheap { myself { id } }
      query Dear { myself { ...E } }
      fragment E on User { endpoints { id name pods { id status } } }
    `);
    const [cheap, dear] = document.definitions as OperationDefinitionNode[];
    expect(operationCost(schema, document, cheap)).toBe(3.5);
    // myself 2 + 1.5 * (spread 1 + 1.5 * (fragment 2 + 1.5 * endpoints 12.5))
    expect(operationCost(schema, document, dear)).toBeCloseTo(2 + 1.5 * (1 + 1.5 * (2 + 1.5 * 12.5)), 6);
    expect(operationCost(schema, document, cheap)).toBe(3.5);
  });
});

describe('formatGraphqlError', () => {
  it('words the token refusal as the others are, and names the limit', () => {
    expect(
      formatGraphqlError({
        message: 'Syntax Error: Document contains more that 2000 tokens. Parsing aborted.',
        extensions: { code: 'GRAPHQL_PARSE_FAILED' },
      }),
    ).toEqual({
      message: 'query refused: Token limit of 2000 exceeded; parsing aborted.',
      extensions: { code: 'GRAPHQL_PARSE_FAILED', limit: 'tokens' },
    });
  });

  it('never lets a stack trace out', () => {
    expect(
      formatGraphqlError({
        message: 'boom',
        extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['Error: boom', '    at x (y.js:1:1)'] },
      }),
    ).toEqual({ message: 'boom', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  });
});
