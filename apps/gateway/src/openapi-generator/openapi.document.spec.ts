import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ROOT } from '../../../../test/support/paths.js';
import { OPENAPI_INTERFACES, openApiFile, type OpenApiInterface } from '../openapi/openapi-files.js';
import {
  generateOpenApiDocuments,
  serializeOpenApiDocument,
  type OpenApiDocument,
} from './openapi.document.js';

const DIR = join(ROOT, 'apps/gateway/openapi');

/**
 * The committed descriptions (apps/gateway/openapi/) are what the code generates: a changed route, DTO or view
 * without `npm run openapi` fails here.
 */
describe('OpenAPI descriptions', () => {
  let documents: Record<OpenApiInterface, OpenApiDocument>;

  beforeAll(async () => {
    documents = await generateOpenApiDocuments(ROOT);
  }, 60_000);

  it.each(OPENAPI_INTERFACES)('the committed %s document is what the code generates', async (iface) => {
    const file = openApiFile(DIR, iface);
    const generated = await serializeOpenApiDocument(documents[iface], file);
    let committed: string;
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${relative(ROOT, file)} is missing: run \`npm run build && npm run openapi\``);
    }
    if (committed !== generated) {
      throw new Error(
        `${relative(ROOT, file)} differs from what the code generates: run \`npm run build && npm run openapi\` ` +
          `and commit the result\n${firstDifference(committed, generated)}`,
      );
    }
  });

  it.each(OPENAPI_INTERFACES)('the %s document is valid OpenAPI 3.1', async (iface) => {
    const validator = new Validator();
    const result = await validator.validate(documents[iface]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(documents[iface].openapi).toBe('3.1.0');
  });

  it('describes /v2 (with the queue and worker routes) as version 2.0.0 and /v1 separately', () => {
    const v2 = Object.keys(documents.v2.paths);
    const v1 = Object.keys(documents.v1.paths);
    expect((documents.v2.info as { version: string }).version).toBe('2.0.0');
    expect(v2.every((path) => path.startsWith('/v2/'))).toBe(true);
    expect(v1.every((path) => path.startsWith('/v1/'))).toBe(true);
    expect(v2).toEqual(
      expect.arrayContaining([
        '/v2/clusters',
        '/v2/{endpointId}/runsync',
        '/v2/{endpointId}/job-take/{workerId}',
      ]),
    );
    expect(v1).toEqual(
      expect.arrayContaining([
        '/v1/pods/{podId}/start',
        '/v1/containerregistryauth/{containerRegistryAuthId}',
      ]),
    );
  });

  it('gives every operation its auth, its success body and problem+json errors', () => {
    for (const document of Object.values(documents)) {
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const where = `${method.toUpperCase()} ${path}`;
          const responses = operation.responses as Record<string, { content?: Record<string, unknown> }>;
          expect([where, Object.keys(responses)]).toEqual([
            where,
            expect.arrayContaining(['401', '403', 'default']),
          ]);
          for (const [status, response] of Object.entries(responses)) {
            if (/^[45]\d\d$|^default$/.test(status)) {
              expect([where, status, Object.keys(response.content ?? {})]).toEqual([
                where,
                status,
                ['application/problem+json'],
              ]);
            }
          }
          expect([where, operation.security]).toEqual([where, expect.arrayContaining([{ bearer: [] }])]);
        }
      }
    }
    const problem = (documents.v2.components as { schemas: Record<string, unknown> }).schemas.Problem;
    expect(problem).toMatchObject({
      type: 'object',
      required: ['title', 'status', 'detail'],
      properties: { errors: { type: 'array', items: { type: 'string' } } },
    });
  });
});

/** The first line where two texts differ, to say what changed. */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `first difference at line ${at + 1}:\n  committed: ${a[at] ?? '(end)'}\n  generated: ${b[at] ?? '(end)'}`;
}
