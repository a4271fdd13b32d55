import { HttpException, type Logger } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode } from '@app/contracts';
import { httpStatusFor } from './http-status.js';

/**
 * The one table from shared error codes to GraphQL `extensions.code` (Apollo's conventional names where one
 * exists, the shared code otherwise). Clients read `errors[0].message`; the code is the stable machine-readable
 * part.
 */
export function graphqlCodeFor(code: ErrorCode): string {
  switch (code) {
    case ErrorCode.ValidationFailed:
      return 'BAD_USER_INPUT';
    case ErrorCode.BadRequest:
      return 'BAD_REQUEST';
    case ErrorCode.Unauthenticated:
      return 'UNAUTHENTICATED';
    case ErrorCode.Forbidden:
      return 'FORBIDDEN';
    case ErrorCode.NotFound:
      return 'NOT_FOUND';
    case ErrorCode.InvalidState:
      return 'INVALID_STATE';
    case ErrorCode.Conflict:
      return 'CONFLICT';
    case ErrorCode.InUse:
      return 'IN_USE';
    case ErrorCode.CapacityUnavailable:
      return 'CAPACITY_UNAVAILABLE';
    case ErrorCode.QuotaExceeded:
      return 'QUOTA_EXCEEDED';
    case ErrorCode.PayloadTooLarge:
      return 'PAYLOAD_TOO_LARGE';
    case ErrorCode.RateLimited:
      return 'RATE_LIMITED';
    case ErrorCode.SpendLimitReached:
      return 'SPEND_LIMIT_REACHED';
    case ErrorCode.OwnerUnavailable:
      return 'SERVICE_UNAVAILABLE';
    case ErrorCode.DependencyUnavailable:
      return 'SERVICE_UNAVAILABLE';
    case ErrorCode.NotAvailable:
      return 'NOT_AVAILABLE';
    case ErrorCode.UpstreamFailed:
      return 'UPSTREAM_FAILED';
    case ErrorCode.UpstreamTimeout:
      return 'UPSTREAM_TIMEOUT';
    case ErrorCode.Internal:
      return 'INTERNAL_SERVER_ERROR';
  }
}

/**
 * Errors about the key itself keep their HTTP status (401, 403): the GraphQL clients tell an authentication
 * failure by the status (the Python SDK raises AuthenticationError on 401) and print `errors[0].message`
 * otherwise. So does the rate limit (429, with Retry-After), which refuses the whole operation, as on REST. Every
 * other execution error is answered 200 with `errors`, as GraphQL over HTTP expects.
 */
const STATUS_KEPT: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.Unauthenticated,
  ErrorCode.Forbidden,
  ErrorCode.RateLimited,
]);

/** Turns anything a resolver (or a guard before it) threw into a GraphQL error; never leaks a stack. */
export function toGraphQLError(error: unknown, logger: Logger): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (error instanceof DomainError) {
    const details = error.errors?.length ? `: ${error.errors.join('; ')}` : '';
    return new GraphQLError(`${error.message}${details}`, {
      extensions: {
        code: graphqlCodeFor(error.code),
        ...(error.errors?.length ? { errors: error.errors } : {}),
        ...(STATUS_KEPT.has(error.code) ? { http: { status: httpStatusFor(error.code) } } : {}),
      },
    });
  }
  if (error instanceof HttpException && error.getStatus() < 500) {
    return new GraphQLError(error.message, { extensions: { code: 'BAD_REQUEST' } });
  }
  const errorId = randomUUID();
  logger.error({ errorId, err: error }, 'unexpected error');
  return new GraphQLError(`unexpected error ${errorId}; it has been logged under this id`, {
    extensions: { code: graphqlCodeFor(ErrorCode.Internal) },
  });
}
