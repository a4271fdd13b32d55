import { join } from 'node:path';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { createGenerator, type Definition } from 'ts-json-schema-generator';
import { ENV_NAME, WEBHOOK_URL_MAX, WEBHOOK_URL_PATTERN } from '@app/contracts';

// The schemas of the OpenAPI documents (openapi.document.ts): request bodies from the DTOs' class-validator
// decorators (what the ValidationPipe enforces), responses and doc comments from the TypeScript types.

export type Json = Record<string, unknown>;

/** JSON Schemas of the request body classes, from the class-validator metadata the ValidationPipe enforces. */
export function requestBodySchemas(): Record<string, Json> {
  const schemas = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    classTransformerMetadataStorage: defaultMetadataStorage,
    additionalConverters: {
      isEnvRecord: (meta: { constraints?: unknown[] }) => ({
        type: 'object',
        maxProperties: (meta.constraints?.[0] as number | undefined) ?? 256,
        propertyNames: { pattern: ENV_NAME.source },
        additionalProperties: { type: 'string', maxLength: 32 * 1024 },
      }),
      // A create field an update cannot change (PATCH /v2/clusters/{id}): refused whenever present.
      isAbsent: () => ({ not: {} }),
      // What a JSON Schema can say of it; that the URL parses is checked too (webhook.contracts.ts).
      isWebhookUrl: () => ({
        type: 'string',
        format: 'uri',
        pattern: WEBHOOK_URL_PATTERN,
        maxLength: WEBHOOK_URL_MAX,
      }),
    },
  }) as Record<string, Json>;
  for (const schema of Object.values(schemas)) {
    // The global ValidationPipe forbids unknown properties (422), nested ones included.
    schema.additionalProperties = false;
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    // A property that must be absent (isAbsent) has no @IsOptional, which the converter reads as required.
    const required = new Set(
      ((schema.required ?? []) as string[]).filter((name) => !isAbsent(properties[name])),
    );
    if (schema.required) schema.required = [...required];
    for (const [name, property] of Object.entries(properties)) {
      // `@IsDefined` and `@ValidateNested` leave `{$ref, type: object, not: {type: null}}`: the $ref says it all.
      if (typeof property.$ref === 'string') {
        delete property.type;
        delete property.not;
      }
      if (property.type === 'array' && (property.items as Json | undefined)?.$ref) {
        const items = property.items as Json;
        delete items.type;
        delete items.not;
      }
      // `@IsOptional` skips every check for null as for a missing property: null is accepted.
      if (!required.has(name)) properties[name] = nullable(property);
    }
  }
  return schemas;
}

function isAbsent(schema: Json | undefined): boolean {
  return !!schema && Object.keys(schema).length === 1 && JSON.stringify(schema.not) === '{}';
}

function nullable(schema: Json): Json {
  if (Array.isArray(schema.enum)) {
    return { ...schema, type: [schema.type, 'null'], enum: [...(schema.enum as unknown[]), null] };
  }
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (typeof schema.$ref === 'string') return { anyOf: [schema, { type: 'null' }] };
  return schema;
}

/**
 * JSON Schemas of TypeScript types (the response views, the problem body, and the DTOs for their doc comments),
 * from the sources; `$ref`s point into `#/components/schemas`.
 */
export function typeScriptSchemas(root: string, names: string[]): Record<string, Json> {
  const generator = createGenerator({
    path: join(root, '{apps/gateway/src/openapi/openapi-views.ts,libs/contracts/src/index.ts}'),
    tsconfig: join(root, 'apps/gateway/tsconfig.app.json'),
    type: '*',
    expose: 'export',
    topRef: false,
    jsDoc: 'extended',
    skipTypeCheck: true,
    additionalProperties: false,
    sortProps: false,
  });
  const out: Record<string, Json> = {};
  for (const name of names) {
    const { definitions, $schema: _schema, ...schema } = generator.createSchema(name) as Definition & Json;
    out[name] = schema;
    for (const [defName, def] of Object.entries((definitions ?? {}) as Record<string, Json>)) {
      out[defName] ??= def;
    }
  }
  return JSON.parse(JSON.stringify(out).replaceAll('"#/definitions/', '"#/components/schemas/')) as Record<
    string,
    Json
  >;
}

/** Every `$ref` target (component name) reachable from `value`. */
export function collectRefs(
  value: unknown,
  schemas: Record<string, Json>,
  seen = new Set<string>(),
): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, schemas, seen);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/')) {
        const name = item.slice('#/components/schemas/'.length);
        if (!seen.has(name)) {
          seen.add(name);
          if (!schemas[name]) throw new Error(`schema ${name} is referenced but was not generated`);
          collectRefs(schemas[name], schemas, seen);
        }
      } else {
        collectRefs(item, schemas, seen);
      }
    }
  }
  return seen;
}

/** The class-validator schema of a DTO, with the descriptions of its doc comments (from the TypeScript schema). */
export function withDescriptions(schema: Json, fromType: Json | undefined): Json {
  const typed = (fromType?.properties ?? {}) as Record<string, Json>;
  const properties = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, property]) => {
      const description = typed[name]?.description as string | undefined;
      return [name, description ? { description, ...property } : property];
    }),
  );
  const description = fromType?.description as string | undefined;
  return { ...(description ? { description } : {}), ...schema, properties };
}
