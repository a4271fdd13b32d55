/**
 * Error codes shared by every process. The gateway maps each one to an HTTP status (and GraphQL code) in one
 * exhaustive table; handlers only ever throw a DomainError carrying one of these.
 */
export const ErrorCode = {
  /** Body or parameters failed validation (422). */
  ValidationFailed: 'VALIDATION_FAILED',
  /** Request malformed or conflicting with request rules (400). */
  BadRequest: 'BAD_REQUEST',
  Unauthenticated: 'UNAUTHENTICATED',
  Forbidden: 'FORBIDDEN',
  NotFound: 'NOT_FOUND',
  /** The resource exists but the action is not allowed in its current state (409). */
  InvalidState: 'INVALID_STATE',
  /** The request conflicts with an existing resource (a duplicate name, say) (409). */
  Conflict: 'CONFLICT',
  /** The resource is still referenced by another one (400, as the interface asks for deletes in use). */
  InUse: 'IN_USE',
  /** No capacity satisfies the request (409). */
  CapacityUnavailable: 'CAPACITY_UNAVAILABLE',
  /** The team's GPU quota (with what its cohort may lend) does not cover the request (409). */
  QuotaExceeded: 'QUOTA_EXCEEDED',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  RateLimited: 'RATE_LIMITED',
  /** The user's monthly spend limit is reached: new GPU work is refused (402). */
  SpendLimitReached: 'SPEND_LIMIT_REACHED',
  /** The owning service did not answer in time (503). */
  OwnerUnavailable: 'OWNER_UNAVAILABLE',
  /** A dependency (database, bus) is down (503). */
  DependencyUnavailable: 'DEPENDENCY_UNAVAILABLE',
  /** The feature exists in the interface but is not available in this deployment (501). */
  NotAvailable: 'NOT_AVAILABLE',
  /** A load-balancing endpoint's worker failed the request: it died or broke the connection before answering (502). */
  UpstreamFailed: 'UPSTREAM_FAILED',
  /** No worker of a load-balancing endpoint became ready in time, or a worker did not answer in time (504). */
  UpstreamTimeout: 'UPSTREAM_TIMEOUT',
  Internal: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ALL_ERROR_CODES: readonly ErrorCode[] = Object.values(ErrorCode);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ALL_ERROR_CODES as readonly string[]).includes(value);
}
