import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ROOT } from './paths.js';

/** The parts of a committed OpenAPI document (apps/gateway/openapi/openapi.<iface>.json) the tests read. */
export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface OpenApiOperation {
  operationId: string;
  parameters?: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  security: Record<string, string[]>[];
}

export type JsonSchema = Record<string, unknown>;

export const OPENAPI_DIR = join(ROOT, 'apps/gateway/openapi');

export function openApiText(iface: 'v1' | 'v2'): string {
  return readFileSync(join(OPENAPI_DIR, `openapi.${iface}.json`), 'utf8');
}

export function openApiDocument(iface: 'v1' | 'v2'): OpenApiDoc {
  return JSON.parse(openApiText(iface)) as OpenApiDoc;
}

/**
 * Validates values against the schemas of a document (JSON Schema 2020-12, the dialect of OpenAPI 3.1):
 * `validate({$ref: '#/components/schemas/Problem'}, body)` → the errors as readable lines, empty when valid.
 */
export function schemaValidator(document: OpenApiDoc): (schema: JsonSchema, value: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'openapi.json', components: document.components });
  const compiled = new Map<string, ValidateFunction>();
  return (schema, value) => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      const rebased = JSON.parse(
        key.replaceAll('"#/components/', '"openapi.json#/components/'),
      ) as JsonSchema;
      validate = ajv.compile(rebased);
      compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`.trim());
  };
}
