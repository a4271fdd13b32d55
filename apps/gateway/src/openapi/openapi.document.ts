import { join } from 'node:path';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { format, resolveConfig } from 'prettier';
import { createGenerator, type Definition } from 'ts-json-schema-generator';
import { loadConfig } from '@app/config';
import { ENV_NAME, WEBHOOK_URL_MAX, WEBHOOK_URL_PATTERN } from '@app/contracts';
import { IS_PUBLIC } from '@app/platform';
import { AppModule } from '../app.module.js';
import { AUTH_RULE, type AuthRule } from '../auth/auth.decorators.js';
import { PROBLEM_CONTENT_TYPE } from '../edge/problem.js';
import { MAX_JSON_DEPTH, MAX_PATH_PARAM_LENGTH } from '../edge/request-shape.pipe.js';
import { GatewayConfig } from '../gateway.config.js';
import type { JobRouteOptions } from '../edge/job-routes.setup.js';
import {
  NO_RATE_LIMIT,
  RATE_LIMIT_POLICY,
  type RateLimitPolicyRule,
} from '../rate-limit/rate-limit.decorators.js';
import { OPENAPI_INTERFACES, type OpenApiInterface } from './openapi-files.js';
import { operationMetadata, type OperationMetadata } from './openapi.decorators.js';

/**
 * Builds the OpenAPI 3.1.0 descriptions of the gateway's REST routes from the code, with no database or NATS:
 *
 * - routes, parameters and request body classes: @nestjs/swagger's scan of the gateway's real module graph,
 *   instantiated in Nest's preview mode (no provider runs);
 * - request body schemas: class-validator-jsonschema from the DTOs' class-validator decorators (what the
 *   ValidationPipe enforces), with the descriptions of their doc comments;
 * - response schemas: ts-json-schema-generator from the TypeScript types named by `@Operation({ returns })`;
 * - auth, rate limits and error responses: the routes' own `@Auth`, `@Public`, `@NoRateLimit` and
 *   `@RateLimitPolicy` metadata, and the problem+json error format of the interface.
 *
 * `npm run openapi` writes the result to apps/gateway/openapi/; a unit test fails when the committed files differ.
 */

// ---- what the documents contain beyond the routes -----------------------------------------------------------------

/** Routes of every app that are not part of the REST interfaces (the probes; /metrics has a port of its own). */
export const NON_API_PATHS: readonly string[] = ['/healthz', '/readyz'];

const INFO: Record<OpenApiInterface, { title: string; version: string; description: string }> = {
  v2: {
    title: 'GPU control plane: REST interface v2',
    version: '2.0.0',
    description:
      'Pods, serverless endpoints, clusters and the catalog under {base_url}/v2, and the job operations of ' +
      'queue-based serverless endpoints with the worker protocol under {queue_url}/v2/{endpointId} (one gateway ' +
      'serves both). Wire-compatible with the RunPod clients and workers. Every error body is ' +
      'application/problem+json {title, status, detail, errors?}. Endpoints are also managed over GraphQL at ' +
      '/graphql (not described here).',
  },
  v1: {
    title: 'GPU control plane: REST interface v1',
    version: '1.0.0',
    description:
      'Pods, templates, container registry credentials, network volumes and the account SSH keys under ' +
      '{rest_url}/v1, wire-compatible with the RunPod REST API and CLI. Every error body is ' +
      'application/problem+json {title, status, detail, errors?} (the message is in `detail`).',
  },
};

const TAGS: Record<string, string> = {
  Clusters: 'Multi-node clusters: identical pods in one data center on a private VXLAN overlay',
  Catalog: 'GPU types, CPU types and data centers, with live availability',
  'Queue jobs': 'Job operations of a queue-based serverless endpoint (the key raw or as Bearer)',
  'Worker protocol':
    'What serverless workers call (keys of scope worker, bound to the endpoint); never rate limited',
  Pods: 'Standalone GPU and CPU pods and their lifecycle actions',
  Templates: 'Container settings that pods and serverless endpoints are created from',
  'Container registry credentials': 'Credentials for pulling private images; the password is write-only',
  'Network volumes': 'Storage in one data center, mountable by pods and clusters',
  'SSH keys': "The account's SSH public keys",
  Account: "The account's API keys (which one is asking, and what it may do)",
};

const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  endpointId: "The serverless endpoint's id",
  jobId: 'The job id returned when the job was submitted',
  workerId: "The worker's id (its pod id)",
  podId: "The pod's id",
  id: "The resource's id",
  templateId: "The template's id",
  networkVolumeId: "The network volume's id",
  containerRegistryAuthId: "The container registry credential's id",
};

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`cpk_...`) as `Authorization: Bearer <key>`.',
  },
  rawKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'The queue and worker routes also take the key itself, `Authorization: <key>`, as the interface shows.',
  },
};

const HEADERS = {
  RateLimit: {
    description:
      'Live quota state (RFC draft structured-field list): one member per window, `"minute";r=<remaining>;t=<seconds ' +
      'to reset>, "hour";..., "day";...`. Absent for callers exempt from rate limiting.',
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description:
      'The quotas: `"minute";q=<quota>;w=60, "hour";q=...;w=3600, "day";q=...;w=86400`. Absent for exempt callers.',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
};

/** The values `loadConfig` needs to build the module graph; nothing connects anywhere in preview mode. */
const GENERATION_ENV = {
  DATABASE_URL: 'postgres://openapi@127.0.0.1:5432/unused',
  NATS_URL: 'nats://127.0.0.1:4222',
  NATS_PREFIX: 'openapi',
  REGISTRY_AUTH_KEYS: `k0:${Buffer.alloc(32).toString('base64')}`,
  WORKER_KEY_RING: `w0:${Buffer.alloc(32).toString('base64')}`,
};

// ---- JSON shapes -----------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

interface RouteSource {
  controller: new (...args: never[]) => unknown;
  handler: (...args: never[]) => unknown;
}

export type OpenApiDocument = Json & { openapi: string; paths: Record<string, Record<string, Json>> };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function metadataOf<T>(key: unknown, targets: object[]): T | undefined {
  for (const target of targets) {
    const value = Reflect.getMetadata(key, target) as T | undefined;
    if (value !== undefined) return value;
  }
  return undefined;
}

// ---- the scan ----------------------------------------------------------------------------------------------------

/** The swagger scan of the gateway's controllers, and where each operation's handler is. */
async function scanGateway(): Promise<{
  scanned: OpenAPIObject;
  sources: Map<string, RouteSource>;
  config: GatewayConfig;
}> {
  const config = loadConfig(GatewayConfig, GENERATION_ENV);
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config),
    new FastifyAdapter(),
    {
      preview: true,
      logger: false,
      abortOnError: false,
    },
  );
  try {
    const operationId = (controllerKey: string, methodKey: string) => `${controllerKey}.${methodKey}`;
    const scanned = SwaggerModule.createDocument(
      app,
      new DocumentBuilder().setOpenAPIVersion('3.1.0').build(),
      {
        operationIdFactory: operationId,
        autoTagControllers: false,
      },
    );
    const sources = new Map<string, RouteSource>();
    for (const module of app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as RouteSource['controller'] | null;
        if (!controller || Reflect.getMetadata(PATH_METADATA, controller) === undefined) continue;
        for (const name of Object.getOwnPropertyNames(controller.prototype)) {
          const handler = (controller.prototype as Record<string, unknown>)[name];
          if (name === 'constructor' || typeof handler !== 'function') continue;
          sources.set(operationId(controller.name, name), {
            controller,
            handler: handler as RouteSource['handler'],
          });
        }
      }
    }
    return { scanned, sources, config };
  } finally {
    await app.close();
  }
}

/** `/v2/...` → v2; every documented path belongs to exactly one interface. */
function interfaceOf(path: string): OpenApiInterface {
  const iface = OPENAPI_INTERFACES.find((name) => path.startsWith(`/${name}/`));
  if (!iface)
    throw new Error(`route ${path} belongs to no REST interface (${OPENAPI_INTERFACES.join(', ')})`);
  return iface;
}

// ---- schemas -----------------------------------------------------------------------------------------------------

/** JSON Schemas of the request body classes, from the class-validator metadata the ValidationPipe enforces. */
function requestBodySchemas(): Record<string, Json> {
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
    const required = new Set((schema.required ?? []) as string[]);
    const properties = (schema.properties ?? {}) as Record<string, Json>;
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
function typeScriptSchemas(root: string, names: string[]): Record<string, Json> {
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
    for (const [defName, def] of Object.entries((definitions ?? {}) as Record<string, Json>))
      out[defName] ??= def;
  }
  return JSON.parse(JSON.stringify(out).replaceAll('"#/definitions/', '"#/components/schemas/')) as Record<
    string,
    Json
  >;
}

/** Every `$ref` target (component name) reachable from `value`. */
function collectRefs(value: unknown, schemas: Record<string, Json>, seen = new Set<string>()): Set<string> {
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

// ---- operations --------------------------------------------------------------------------------------------------

interface RouteFacts {
  auth: AuthRule | undefined;
  isPublic: boolean;
  rateLimit: RateLimitPolicyRule | undefined;
  bodyLimit: number;
  meta: OperationMetadata;
}

function routeFacts(source: RouteSource, operationId: string, config: GatewayConfig): RouteFacts {
  const targets = [source.handler, source.controller];
  const meta = operationMetadata(source.handler);
  if (!meta) {
    throw new Error(
      `${operationId} has no @Operation(...) (apps/gateway/src/openapi/openapi.decorators.ts): every REST handler ` +
        'documents its summary and response type',
    );
  }
  const isPublic = metadataOf<boolean>(IS_PUBLIC, targets) === true;
  const limited = !isPublic && metadataOf<boolean>(NO_RATE_LIMIT, targets) !== true;
  const routeConfig = metadataOf<Record<string, JobRouteOptions | undefined>>(
    FASTIFY_ROUTE_CONFIG_METADATA,
    targets,
  );
  return {
    auth: metadataOf<AuthRule>(AUTH_RULE, targets),
    isPublic,
    rateLimit: limited
      ? (metadataOf<RateLimitPolicyRule>(RATE_LIMIT_POLICY, targets) ?? { policy: 'rest' })
      : undefined,
    bodyLimit: routeConfig?.gpucpJobRoute?.bodyLimit ?? config.MAX_BODY_BYTES,
    meta,
  };
}

function problemResponse(description: string, headers: Json): Json {
  return {
    description,
    ...(Object.keys(headers).length ? { headers } : {}),
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

function bodyFor(meta: OperationMetadata): Json | undefined {
  if (!meta.returns) return undefined;
  const ref = { $ref: `#/components/schemas/${meta.returns}` };
  const json = { 'application/json': { schema: meta.array ? { type: 'array', items: ref } : ref } };
  if (!meta.eventStream) return json;
  return { ...json, 'text/event-stream': { schema: { type: 'string', description: meta.eventStream } } };
}

/** The operation as the document shows it, from swagger's scan and the route's own metadata. */
function buildOperation(path: string, scanned: Json, facts: RouteFacts): Json {
  const { meta } = facts;
  const parameters = ((scanned.parameters ?? []) as Json[]).map((parameter) => {
    const description =
      (parameter.description as string | undefined) ?? PARAMETER_DESCRIPTIONS[parameter.name as string];
    const { name, in: where, required, schema } = parameter;
    return { name, in: where, ...(description ? { description } : {}), required: required === true, schema };
  });
  const requestBody = scanned.requestBody as Json | undefined;
  const validatedQuery = parameters.some((p) => p.in === 'query' && (p.schema as Json).type === 'integer');
  const rateHeaders: Json = facts.rateLimit
    ? {
        RateLimit: { $ref: '#/components/headers/RateLimit' },
        'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
      }
    : {};

  const responses: Record<string, Json> = {};
  if (meta.unavailable) {
    if (!meta.errors?.[501] || meta.returns) throw new Error(`${path}: unavailable documents only its 501`);
  } else {
    const successes = Object.keys((scanned.responses ?? {}) as Json).filter((status) =>
      /^2\d\d$/.test(status),
    );
    if (successes.length !== 1)
      throw new Error(`${path}: expected one success status, found ${successes.join(', ')}`);
    const success = successes[0];
    const content = bodyFor(meta);
    if (success === '204' && content)
      throw new Error(`${path}: answers 204 but documents a body (${meta.returns})`);
    if (success !== '204' && !content) throw new Error(`${path}: answers ${success} but documents no body`);
    responses[success] = {
      description: meta.returns ? `${meta.returns}${meta.array ? '[]' : ''}` : 'No content',
      ...(Object.keys(rateHeaders).length ? { headers: rateHeaders } : {}),
      ...(content ? { content } : {}),
    };
  }
  if (meta.orNoContent) responses['204'] = { description: 'Nothing came within the long poll' };

  const errors: Record<number, string[]> = {};
  const add = (status: number, text: string | undefined) => {
    if (text) (errors[status] ??= []).push(text);
  };
  const hasPathParameters = parameters.some((p) => p.in === 'path');
  if (requestBody) {
    add(
      400,
      `malformed JSON, JSON nested deeper than ${MAX_JSON_DEPTH} levels, or a NUL character in the body`,
    );
  }
  if (parameters.length) add(400, 'a path or query parameter containing control characters');
  add(400, meta.errors?.[400]);
  add(402, meta.errors?.[402]);
  if (!facts.isPublic) {
    add(401, 'missing, malformed, unknown or revoked API key');
    add(403, "the key's scope does not allow this route, or the resource belongs to another user");
  }
  if (hasPathParameters) add(404, 'no such resource (unknown id, or an expired job)');
  add(404, meta.errors?.[404]);
  add(409, meta.errors?.[409]);
  if (requestBody) add(413, `the body is larger than this route accepts (${facts.bodyLimit} bytes)`);
  add(413, meta.errors?.[413]);
  if (hasPathParameters) add(414, `a path parameter longer than ${MAX_PATH_PARAM_LENGTH} characters`);
  if (requestBody) add(415, 'unsupported Content-Type: send application/json');
  if ((requestBody && facts.auth?.worker !== true) || validatedQuery) {
    add(
      422,
      'the body or a parameter failed validation (unknown property, failed constraint): one `errors` entry each',
    );
  }
  add(422, meta.errors?.[422]);
  if (facts.rateLimit) add(429, 'a rate-limit window is full; the detail names it (minute, hour or day)');
  add(501, meta.errors?.[501]);
  add(503, meta.errors?.[503]);
  for (const [status, texts] of Object.entries(errors)) {
    const headers: Json = status === '401' ? {} : { ...rateHeaders };
    if (status === '429') headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    responses[status] = problemResponse(`${[...new Set(texts)].join('; ')}.`, headers);
  }
  responses.default = problemResponse(
    'Any other error, in the same format: 500 with an error id that is logged, 503 when a service behind the ' +
      'gateway does not answer.',
    facts.isPublic ? {} : rateHeaders,
  );

  const security = facts.isPublic
    ? []
    : facts.auth?.key === 'raw-or-bearer'
      ? [{ bearer: [] }, { rawKey: [] }]
      : [{ bearer: [] }];
  return {
    operationId: scanned.operationId,
    summary: meta.summary,
    ...(meta.description ? { description: meta.description } : {}),
    tags: scanned.tags ?? [],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody: { ...requestBody, 'x-max-bytes': facts.bodyLimit } } : {}),
    responses,
    security,
    ...(facts.rateLimit ? { 'x-rate-limit-policy': facts.rateLimit.policy } : {}),
  };
}

// ---- the documents -----------------------------------------------------------------------------------------------

/** Generates the documents of both interfaces from the code under `root` (the repository). */
export async function generateOpenApiDocuments(
  root: string,
): Promise<Record<OpenApiInterface, OpenApiDocument>> {
  const { scanned, sources, config } = await scanGateway();
  const paths: Record<OpenApiInterface, Record<string, Record<string, Json>>> = { v1: {}, v2: {} };
  for (const [path, item] of Object.entries(scanned.paths as Record<string, Record<string, Json>>)) {
    if (NON_API_PATHS.includes(path)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const operationId = operation.operationId as string;
      const source = sources.get(operationId);
      if (!source) throw new Error(`${method.toUpperCase()} ${path}: cannot find the handler ${operationId}`);
      const iface = interfaceOf(path);
      (paths[iface][path] ??= {})[method] = buildOperation(
        path,
        operation,
        routeFacts(source, operationId, config),
      );
    }
  }

  const bodySchemas = requestBodySchemas();
  const requestBodies = Object.values(paths)
    .flatMap((byPath) => Object.values(byPath))
    .flatMap((byMethod) => Object.values(byMethod))
    .map((operation) => operation.requestBody);
  const bodyNames = [...collectRefs(requestBodies, bodySchemas)];
  const viewNames = [
    ...new Set(
      Object.values(paths)
        .flatMap((byPath) => Object.values(byPath))
        .flatMap((byMethod) => Object.values(byMethod))
        .map((operation) => operationMetadataName(operation))
        .filter((name): name is string => name !== undefined),
    ),
    'Problem',
  ];
  const fromTypes = typeScriptSchemas(root, [...viewNames, ...bodyNames]);
  const schemas: Record<string, Json> = {};
  for (const name of bodyNames) schemas[name] = withDescriptions(bodySchemas[name], fromTypes[name]);
  for (const [name, schema] of Object.entries(fromTypes))
    if (!bodyNames.includes(name)) schemas[name] ??= schema;

  const documents = {} as Record<OpenApiInterface, OpenApiDocument>;
  for (const iface of OPENAPI_INTERFACES) {
    const ifacePaths = Object.fromEntries(
      Object.entries(paths[iface]).sort(([a], [b]) => a.localeCompare(b)),
    );
    const used = [...collectRefs(ifacePaths, schemas)].sort();
    const tags = [
      ...new Set(
        Object.values(ifacePaths)
          .flatMap((item) => Object.values(item))
          .flatMap((operation) => operation.tags as string[]),
      ),
    ];
    documents[iface] = {
      openapi: '3.1.0',
      info: { ...INFO[iface], license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
      servers: [
        {
          url: iface === 'v2' ? '{base_url}' : '{rest_url}',
          description: 'The gateway (npm start serves it on http://127.0.0.1:8080)',
          variables: {
            [iface === 'v2' ? 'base_url' : 'rest_url']: { default: 'http://127.0.0.1:8080' },
          },
        },
      ],
      tags: tags.map((name) => ({ name, ...(TAGS[name] ? { description: TAGS[name] } : {}) })),
      paths: ifacePaths,
      components: {
        schemas: Object.fromEntries(used.map((name) => [name, schemas[name]])),
        headers: HEADERS,
        securitySchemes: SECURITY_SCHEMES,
      },
    };
  }
  return documents;
}

/** The response type an operation documents (the `$ref` of its success body). */
function operationMetadataName(operation: Json): string | undefined {
  for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)
      ?.schema as Json | undefined;
    const ref = (schema?.$ref ?? (schema?.items as Json | undefined)?.$ref) as string | undefined;
    if (ref) return ref.slice('#/components/schemas/'.length);
  }
  return undefined;
}

/** The class-validator schema of a DTO, with the descriptions of its doc comments (from the TypeScript schema). */
function withDescriptions(schema: Json, fromType: Json | undefined): Json {
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

/** The committed form of a document: JSON as prettier formats it (so `npm run format` leaves it alone). */
export async function serializeOpenApiDocument(document: OpenApiDocument, file: string): Promise<string> {
  const options = (await resolveConfig(file)) ?? {};
  return format(JSON.stringify(document), { ...options, filepath: file });
}
