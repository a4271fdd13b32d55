import { PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { format, resolveConfig } from 'prettier';
import { loadConfig } from '@app/config';
import { AppModule } from '../app.module.js';
import { GatewayConfig } from '../gateway.config.js';
import { OPENAPI_INTERFACES, type OpenApiInterface } from '../openapi/openapi-files.js';
import { JOB_READ_ROUTES } from '../jobs/job-read-routes.setup.js';
import {
  buildOperation,
  jobReadOperation,
  operationMetadataName,
  routeFacts,
  type RouteSource,
} from './openapi-operations.js';
import {
  collectRefs,
  requestBodySchemas,
  typeScriptSchemas,
  withDescriptions,
  type Json,
} from './openapi-schemas.js';

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
  Quotas: "Teams' GPU quotas and cohorts: operators set them, members read them and their use",
  Fleet: 'The hosts pods are placed on: register, cordon, drain, remove, health, capacity (operators only)',
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

export type OpenApiDocument = Json & { openapi: string; paths: Record<string, Record<string, Json>> };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

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
  if (!iface) {
    throw new Error(`route ${path} belongs to no REST interface (${OPENAPI_INTERFACES.join(', ')})`);
  }
  return iface;
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

  for (const route of JOB_READ_ROUTES) {
    const { path, scanned: operation, facts } = jobReadOperation(route, config);
    (paths[interfaceOf(path)][path] ??= {}).get = buildOperation(path, operation, facts);
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
  for (const [name, schema] of Object.entries(fromTypes)) {
    if (!bodyNames.includes(name)) schemas[name] ??= schema;
  }

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

/** The committed form of a document: JSON as prettier formats it (so `npm run format` leaves it alone). */
export async function serializeOpenApiDocument(document: OpenApiDocument, file: string): Promise<string> {
  const options = (await resolveConfig(file)) ?? {};
  return format(JSON.stringify(document), { ...options, filepath: file });
}
