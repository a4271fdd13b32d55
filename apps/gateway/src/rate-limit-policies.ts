/**
 * The rate-limit policies of the gateway and how they are configured (docs/adr/0004-rate-limits.md).
 *
 * Every policy counts requests per user in three fixed windows, `minute`, `hour` and `day`, aligned to the
 * Unix epoch (so to UTC minutes, hours and days). `rest` covers every authenticated REST route that names no
 * other policy; `graphql` every GraphQL operation, weighted by its cost (docs/adr/0014-edge-hardening.md); the
 * `queue.*` policies count per user AND per serverless endpoint, one policy per job operation.
 */

/** The windows, in the order the headers list them. */
export const RATE_LIMIT_WINDOWS = ['minute', 'hour', 'day'] as const;
export type RateLimitWindow = (typeof RATE_LIMIT_WINDOWS)[number];

export const RATE_LIMIT_POLICY_NAMES = [
  'rest',
  'graphql',
  'queue.run',
  'queue.runsync',
  'queue.status',
  'queue.stream',
  'queue.cancel',
  'queue.purge-queue',
  'lb',
] as const;
export type RateLimitPolicyName = (typeof RATE_LIMIT_POLICY_NAMES)[number];

export function isRateLimitPolicyName(value: string): value is RateLimitPolicyName {
  return (RATE_LIMIT_POLICY_NAMES as readonly string[]).includes(value);
}

/** What a policy counts: one counter per user, or one per user and serverless endpoint. */
export type RateLimitScope = 'user' | 'user-endpoint';

export function scopeOf(policy: RateLimitPolicyName): RateLimitScope {
  switch (policy) {
    case 'rest':
    case 'graphql':
      return 'user';
    case 'queue.run':
    case 'queue.runsync':
    case 'queue.status':
    case 'queue.stream':
    case 'queue.cancel':
    case 'queue.purge-queue':
    case 'lb':
      return 'user-endpoint';
  }
}

/** A number per window. */
export type PerWindow = Readonly<Record<RateLimitWindow, number>>;

/** One policy as configured: its default quotas (per-user overrides may replace them) and window lengths. */
export interface RateLimitPolicy {
  name: RateLimitPolicyName;
  scope: RateLimitScope;
  /** Requests admitted per window. */
  quotas: PerWindow;
  /** Window lengths in seconds (60, 3600, 86400 outside tests). */
  windowSeconds: PerWindow;
}

/** The environment variable holding each policy's quotas, `minute,hour,day`. */
export const POLICY_VARIABLES: Readonly<Record<RateLimitPolicyName, string>> = {
  rest: 'RATE_LIMIT_REST',
  graphql: 'RATE_LIMIT_GRAPHQL',
  'queue.run': 'RATE_LIMIT_QUEUE_RUN',
  'queue.runsync': 'RATE_LIMIT_QUEUE_RUNSYNC',
  'queue.status': 'RATE_LIMIT_QUEUE_STATUS',
  'queue.stream': 'RATE_LIMIT_QUEUE_STREAM',
  'queue.cancel': 'RATE_LIMIT_QUEUE_CANCEL',
  'queue.purge-queue': 'RATE_LIMIT_QUEUE_PURGE_QUEUE',
  lb: 'RATE_LIMIT_LB',
};

/** Default quotas `minute,hour,day` of each policy (documented in docs/api.md, "Rate limits", and ADR 4). */
export const DEFAULT_QUOTAS: Readonly<Record<RateLimitPolicyName, string>> = {
  rest: '300,6000,50000',
  // Counted in cost units (GRAPHQL_COST_PER_UNIT): endpoint management is rare, a typical query is one unit.
  graphql: '300,6000,50000',
  'queue.run': '1200,30000,500000',
  'queue.runsync': '1200,30000,500000',
  'queue.status': '6000,150000,2000000',
  'queue.stream': '6000,150000,2000000',
  'queue.cancel': '600,10000,100000',
  'queue.purge-queue': '10,100,1000',
  // Every request to a load-balancing endpoint's workers (docs/adr/0026): an HTTP API, so as many as status reads.
  lb: '6000,150000,2000000',
};

/** The real window lengths; anything else is for tests only (NODE_ENV=test). */
export const DEFAULT_WINDOW_SECONDS = '60,3600,86400';

/** `minute,hour,day`: three non-negative integers (0 blocks the policy). */
export const QUOTAS_PATTERN = /^\d{1,9},\d{1,9},\d{1,9}$/;
/** `minute,hour,day` window lengths: three positive integers. */
export const WINDOWS_PATTERN = /^[1-9]\d{0,5},[1-9]\d{0,5},[1-9]\d{0,5}$/;

/** Parses `a,b,c` (already validated by the config) into a number per window. */
export function parsePerWindow(value: string): PerWindow {
  const [minute, hour, day] = value.split(',').map((part) => Number.parseInt(part, 10));
  return { minute, hour, day };
}

/** What the limiter needs from the gateway's config. */
export interface RateLimitSettingsSource {
  RATE_LIMIT_REST: string;
  RATE_LIMIT_GRAPHQL: string;
  RATE_LIMIT_QUEUE_RUN: string;
  RATE_LIMIT_QUEUE_RUNSYNC: string;
  RATE_LIMIT_QUEUE_STATUS: string;
  RATE_LIMIT_QUEUE_STREAM: string;
  RATE_LIMIT_QUEUE_CANCEL: string;
  RATE_LIMIT_QUEUE_PURGE_QUEUE: string;
  RATE_LIMIT_LB: string;
  RATE_LIMIT_WINDOW_SECONDS: string;
}

/** Every policy, from the (validated) config. */
export function policiesFrom(
  source: RateLimitSettingsSource,
): ReadonlyMap<RateLimitPolicyName, RateLimitPolicy> {
  const windowSeconds = parsePerWindow(source.RATE_LIMIT_WINDOW_SECONDS);
  const quotasOf: Record<RateLimitPolicyName, string> = {
    rest: source.RATE_LIMIT_REST,
    graphql: source.RATE_LIMIT_GRAPHQL,
    'queue.run': source.RATE_LIMIT_QUEUE_RUN,
    'queue.runsync': source.RATE_LIMIT_QUEUE_RUNSYNC,
    'queue.status': source.RATE_LIMIT_QUEUE_STATUS,
    'queue.stream': source.RATE_LIMIT_QUEUE_STREAM,
    'queue.cancel': source.RATE_LIMIT_QUEUE_CANCEL,
    'queue.purge-queue': source.RATE_LIMIT_QUEUE_PURGE_QUEUE,
    lb: source.RATE_LIMIT_LB,
  };
  return new Map(
    RATE_LIMIT_POLICY_NAMES.map((name) => [
      name,
      { name, scope: scopeOf(name), quotas: parsePerWindow(quotasOf[name]), windowSeconds },
    ]),
  );
}

/**
 * Units one GraphQL operation counts under the `graphql` policy: ceil(cost / costPerUnit), at least 1 (an
 * operation whose cost is unknown, or 0, still costs the server a request).
 */
export function costUnits(cost: number | undefined, costPerUnit: number): number {
  if (cost === undefined || !Number.isFinite(cost) || cost <= 0) return 1;
  return Math.max(1, Math.ceil(cost / costPerUnit));
}
