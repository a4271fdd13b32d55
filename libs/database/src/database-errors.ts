/**
 * Whether an error means "Postgres cannot be reached right now" (down, restarting, refusing connections, the
 * connection dropped mid-query) rather than a bug or a bad statement: such work is worth retrying once the
 * database is back, and a request failing on it answers 503, never 500.
 */
const UNAVAILABLE_CODES = new Set([
  // node's socket errors (pg's connect, or a connection the server dropped)
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // SQLSTATE class 08 (connection exception) and 57P0x (shutdown, crash, starting up)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  // too_many_connections: a restarting server's pool refills all at once
  '53300',
]);

// pg and pg-pool report some of these without a code.
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not established|the database system is (starting up|shutting down|in recovery mode)/i;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  // TypeORM's QueryFailedError wraps pg's error; node's AggregateError holds one per address tried.
  return (
    isDatabaseUnavailable(driverError, depth + 1) ||
    isDatabaseUnavailable(cause, depth + 1) ||
    (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1)))
  );
}
