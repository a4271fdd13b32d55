import { applyDecorators, type StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiQuery } from '@nestjs/swagger';
import type { JsonBody } from '../edge/json-body.js';
import type { ResponseViews, ViewName } from './openapi-views.js';

/**
 * What the OpenAPI description says of one REST handler beyond what Nest already knows (path, method, status
 * code, parameters, body DTO): a summary, the response body type, and the error statuses particular to it.
 * The generator (openapi.document.ts) adds the errors every route of its kind has (401/403, 404 for a path id,
 * 400/413/422 for a body, 429 where rate limited, problem+json for any other status).
 */
export const OPENAPI_OPERATION = Symbol('gateway:openapi-operation');

/** Error statuses a handler documents itself, with when they happen. */
export type ErrorStatus = 400 | 402 | 404 | 409 | 413 | 422 | 501 | 503;
export type OperationErrors = Partial<Record<ErrorStatus, string>>;

/** The 402 of every route that starts GPU work (docs/adr/0023-spend-limits.md). */
export const SPEND_LIMIT_REFUSAL =
  'the monthly spend limit is reached (the detail names the limit and the spend): new GPU work is refused';

export interface OperationMetadata {
  summary: string;
  description?: string;
  /** The body of the success response; absent for 204. */
  returns?: ViewName;
  /** The body is a JSON array of `returns`. */
  array?: boolean;
  /** The route may also answer 204 with no body (a long poll that found nothing). */
  orNoContent?: boolean;
  /** A route of the interface this deployment does not serve yet: it documents no success, only its 501. */
  unavailable?: boolean;
  /** With `Accept: text/event-stream` the route answers server-sent events instead (their format described). */
  eventStream?: string;
  errors?: OperationErrors;
}

interface Shape {
  array?: boolean;
  orNoContent?: boolean;
  eventStream?: string;
  /** The handler answers the body as its JSON bytes (`JsonBody`), serialized as it was read. */
  serialized?: boolean;
}

/** What a handler documented with `returns: K` and `shape` must resolve to (checked by the compiler). */
type ReturnsOf<K extends ViewName, S extends Shape> =
  | (S extends { array: true } ? ResponseViews[K][] : ResponseViews[K])
  | (S extends { orNoContent: true } ? undefined : never)
  | (S extends { eventStream: string } ? StreamableFile : never)
  | (S extends { serialized: true } ? JsonBody<ResponseViews[K]> : never);

/** A method decorator that accepts only handlers resolving to `T`. */
export type HandlerReturning<T> = (
  target: object,
  key: string | symbol,
  descriptor: { value?: (...args: never[]) => Promise<T> },
) => void;

interface BaseOptions {
  description?: string;
  errors?: OperationErrors;
  unavailable?: boolean;
}

/**
 * Documents a handler. `returns` names the response type (a key of ResponseViews) and the compiler checks that
 * the handler resolves to it:
 *
 *   @Operation('Start or resume a pod', { returns: 'PodView', errors: { 409: '...' } })
 *   start(...): Promise<PodView>
 *
 * Without `returns` the handler answers with no body (204) and must resolve to void.
 */
export function Operation<K extends ViewName, const S extends Shape = object>(
  summary: string,
  options: BaseOptions & S & { returns: K },
): HandlerReturning<ReturnsOf<K, S>>;
export function Operation(summary: string, options?: BaseOptions): HandlerReturning<void>;
export function Operation(
  summary: string,
  options: BaseOptions & Shape & { returns?: ViewName } = {},
): HandlerReturning<unknown> {
  const metadata: OperationMetadata = { summary, ...options };
  return (target, key, descriptor) => {
    Reflect.defineMetadata(OPENAPI_OPERATION, metadata, descriptor.value as object);
    applyDecorators(
      ApiOperation({ summary, ...(options.description ? { description: options.description } : {}) }),
    )(target, key, descriptor as PropertyDescriptor);
  };
}

export function operationMetadata(handler: object): OperationMetadata | undefined {
  return Reflect.getMetadata(OPENAPI_OPERATION, handler) as OperationMetadata | undefined;
}

/** An optional integer query parameter read with `intParam(name, raw, limits)` (jobs/wait-param.ts). */
export function IntQuery(name: string, limits: IntLimits, description: string): MethodDecorator {
  return ApiQuery({ name, required: false, description, schema: intQuerySchema(limits) });
}

export interface IntLimits {
  min: number;
  max: number;
  default?: number;
}

/** The schema of such a parameter (also of the job reads, which no controller declares). */
export function intQuerySchema(limits: IntLimits): Record<string, unknown> {
  return {
    type: 'integer',
    minimum: limits.min,
    maximum: limits.max,
    ...(limits.default !== undefined ? { default: limits.default } : {}),
  };
}

/** An optional string query parameter. */
export function TextQuery(name: string, description: string, values?: readonly string[]): MethodDecorator {
  return ApiQuery({
    name,
    required: false,
    description,
    schema: { type: 'string', ...(values ? { enum: [...values] } : {}) },
  });
}
