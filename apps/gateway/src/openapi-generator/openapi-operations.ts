import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { IS_PUBLIC } from '@app/platform';
import { AUTH_RULE, type AuthRule } from '../auth/auth.decorators.js';
import type { JobRouteOptions } from '../edge/job-routes.setup.js';
import { PROBLEM_CONTENT_TYPE } from '../edge/problem.js';
import { MAX_JSON_DEPTH, MAX_PATH_PARAM_LENGTH } from '../edge/request-shape.pipe.js';
import type { GatewayConfig } from '../gateway.config.js';
import {
  NO_RATE_LIMIT,
  RATE_LIMIT_POLICY,
  type RateLimitPolicyRule,
} from '../rate-limit/rate-limit.decorators.js';
import { JOB_READ_POLICY, type JobReadRoute } from '../jobs/job-read-routes.setup.js';
import { QUEUE_AUTH_RULE, QUEUE_JOBS_TAG } from '../jobs/jobs.controller.js';
import { intQuerySchema, operationMetadata, type OperationMetadata } from '../openapi/openapi.decorators.js';
import type { Json } from './openapi-schemas.js';

// One operation of the OpenAPI documents (openapi.document.ts), from swagger's scan of its route and the route's
// own metadata (`@Operation`, `@Auth`, `@Public`, `@NoRateLimit`, `@RateLimitPolicy`, a job route's body limit),
// with the problem+json responses the edge answers with.

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

/** A documented route's controller class and handler method, which carry its metadata. */
export interface RouteSource {
  controller: new (...args: never[]) => unknown;
  handler: (...args: never[]) => unknown;
}

function metadataOf<T>(key: unknown, targets: object[]): T | undefined {
  for (const target of targets) {
    const value = Reflect.getMetadata(key, target) as T | undefined;
    if (value !== undefined) return value;
  }
  return undefined;
}

interface RouteFacts {
  auth: AuthRule | undefined;
  isPublic: boolean;
  rateLimit: RateLimitPolicyRule | undefined;
  bodyLimit: number;
  meta: OperationMetadata;
}

export function routeFacts(source: RouteSource, operationId: string, config: GatewayConfig): RouteFacts {
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
export function buildOperation(path: string, scanned: Json, facts: RouteFacts): Json {
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
    if (successes.length !== 1) {
      throw new Error(`${path}: expected one success status, found ${successes.join(', ')}`);
    }
    const success = successes[0];
    const content = bodyFor(meta);
    if (success === '204' && content) {
      throw new Error(`${path}: answers 204 but documents a body (${meta.returns})`);
    }
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
    if (facts.auth?.operator) add(403, 'the key is not an operator key (scope `operator`): operators only');
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

/**
 * A job read (registered on Fastify, not by a controller: jobs/job-read-routes.setup.ts) as swagger's scan would
 * have seen it, and the facts its metadata would have given.
 */
export function jobReadOperation(
  route: JobReadRoute,
  config: GatewayConfig,
): { path: string; scanned: Json; facts: RouteFacts } {
  const pathParameters = [...route.url.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    required: true,
    in: 'path',
    schema: { type: 'string' },
  }));
  const { name, limits, description } = route.query;
  return {
    path: route.url.replace(/:(\w+)/g, '{$1}'),
    scanned: {
      operationId: route.operationId,
      tags: [QUEUE_JOBS_TAG],
      parameters: [
        ...pathParameters,
        { name, required: false, in: 'query', description, schema: intQuerySchema(limits) },
      ],
      responses: { 200: { description: '' } },
    },
    facts: {
      auth: QUEUE_AUTH_RULE,
      isPublic: false,
      rateLimit: { policy: JOB_READ_POLICY },
      bodyLimit: config.MAX_BODY_BYTES,
      meta: route.operation,
    },
  };
}

/** The response type an operation documents (the `$ref` of its success body). */
export function operationMetadataName(operation: Json): string | undefined {
  for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)
      ?.schema as Json | undefined;
    const ref = (schema?.$ref ?? (schema?.items as Json | undefined)?.$ref) as string | undefined;
    if (ref) return ref.slice('#/components/schemas/'.length);
  }
  return undefined;
}
