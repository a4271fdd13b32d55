import { ErrorCode } from '@app/contracts';

/** The one table from shared error codes to HTTP statuses. */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.ValidationFailed:
      return 422;
    case ErrorCode.BadRequest:
    case ErrorCode.InUse:
      return 400;
    case ErrorCode.Unauthenticated:
      return 401;
    case ErrorCode.Forbidden:
      return 403;
    case ErrorCode.SpendLimitReached:
      return 402;
    case ErrorCode.NotFound:
      return 404;
    case ErrorCode.InvalidState:
    case ErrorCode.Conflict:
    case ErrorCode.CapacityUnavailable:
    case ErrorCode.QuotaExceeded:
      return 409;
    case ErrorCode.PayloadTooLarge:
      return 413;
    case ErrorCode.RateLimited:
      return 429;
    case ErrorCode.Internal:
      return 500;
    case ErrorCode.NotAvailable:
      return 501;
    case ErrorCode.UpstreamFailed:
      return 502;
    case ErrorCode.OwnerUnavailable:
    case ErrorCode.DependencyUnavailable:
      return 503;
    case ErrorCode.UpstreamTimeout:
      return 504;
  }
}

/** Standard reason phrases, used as the problem `title`. */
export function titleFor(status: number): string {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    402: 'Payment Required',
    403: 'Forbidden',
    404: 'Not Found',
    405: 'Method Not Allowed',
    409: 'Conflict',
    413: 'Payload Too Large',
    414: 'URI Too Long',
    415: 'Unsupported Media Type',
    422: 'Unprocessable Entity',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    501: 'Not Implemented',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return titles[status] ?? 'Error';
}
