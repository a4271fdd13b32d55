import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { type BaseConfig, IsKeyRing, KeyIdsApartFrom } from '@app/config';
import {
  DEFAULT_QUOTAS,
  DEFAULT_WINDOW_SECONDS,
  QUOTAS_PATTERN,
  WINDOWS_PATTERN,
} from './rate-limit-policies.js';
import { SsoConfig } from './sso-settings.js';

const QUOTAS_MESSAGE =
  '$property must be three quotas minute,hour,day (non-negative integers), e.g. 300,6000,50000';

/** Window lengths other than 60,3600,86400 would make the header names (minute, hour, day) lie: tests only. */
@ValidatorConstraint({ name: 'testOnlyWindows' })
class TestOnlyWindows implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return value === DEFAULT_WINDOW_SECONDS || (args.object as BaseConfig).NODE_ENV === 'test';
  }

  defaultMessage(): string {
    return `RATE_LIMIT_WINDOW_SECONDS is test-only: it may differ from ${DEFAULT_WINDOW_SECONDS} only with NODE_ENV=test`;
  }
}

/** The gateway's settings, validated once at boot (see .env.example). */
export class GatewayConfig extends SsoConfig {
  override HTTP_PORT = 8080;
  /** The public edge: every interface by default (the internal apps default to loopback). */
  override HTTP_HOST = '0.0.0.0';
  override METRICS_PORT = 9080;

  /** Key ring sealing registry passwords before they enter a command (`kid:base64key[,...]`, first one seals). */
  @IsKeyRing()
  REGISTRY_AUTH_KEYS: string;

  /**
   * Key ring sealing the workers' API keys the gateway mints for endpoints (`kid:base64key[,...]`, first one
   * seals; key ids apart from REGISTRY_AUTH_KEYS'). Keys sealed with REGISTRY_AUTH_KEYS before this ring existed
   * still open by their key id (ADR 30).
   */
  @IsKeyRing()
  @KeyIdsApartFrom('REGISTRY_AUTH_KEYS')
  WORKER_KEY_RING: string;

  /** Largest JSON body accepted on the REST routes, in bytes. */
  @IsInt()
  @Min(1024)
  @Type(() => Number)
  MAX_BODY_BYTES = 1024 * 1024;

  /**
   * Directory of the committed OpenAPI descriptions (`npm run openapi` writes them), served without a key at
   * /v1/openapi.json and /v2/openapi.json.
   */
  @IsString()
  @MinLength(1)
  OPENAPI_DIR = 'apps/gateway/openapi';

  /**
   * Directory of the built web console (`npm run build` writes it), served without a key at /console under its
   * own security headers (docs/adr/0029-web-console.md).
   */
  @IsString()
  @MinLength(1)
  CONSOLE_DIR = 'dist/console';

  /**
   * How long a replica trusts what it found for an API key (a user and key, or a refusal) before asking the
   * database again; 0 turns the cache off. Revocations and exemption changes reach every replica within a second
   * as an event; this bounds how long a replica that missed the event keeps the old answer
   * (docs/adr/0012-edge-auth-cache-and-limiter.md).
   */
  @IsInt()
  @Min(0)
  @Max(300_000)
  @Type(() => Number)
  AUTH_CACHE_TTL_MS = 10_000;

  // Limits of POST /graphql (docs/adr/0014-edge-hardening.md): a document past one is refused with HTTP 400
  // before anything runs.

  /** Most tokens (names, punctuation, values) a GraphQL document may have; parsing stops past it. */
  @IsInt()
  @Min(100)
  @Max(100_000)
  @Type(() => Number)
  GRAPHQL_MAX_TOKENS = 2000;

  /** Most aliases in one operation (fragments included): what multiplies one field into thousands of calls. */
  @IsInt()
  @Min(0)
  @Max(1000)
  @Type(() => Number)
  GRAPHQL_MAX_ALIASES = 15;

  /** Deepest field nesting of one operation (fragment spreads add levels: a chain of them cannot hide depth). */
  @IsInt()
  @Min(2)
  @Max(100)
  @Type(() => Number)
  GRAPHQL_MAX_DEPTH = 8;

  /** Most directives (`@include`, `@skip`, ...) in one operation. */
  @IsInt()
  @Min(0)
  @Max(1000)
  @Type(() => Number)
  GRAPHQL_MAX_DIRECTIVES = 50;

  /**
   * Highest cost of one operation: 1 per scalar field, 2 per object field, each level's children weighing 1.5 times
   * (graphql-armor's cost-limit). `myself { endpoints { ...every field } }` costs about 100.
   */
  @IsInt()
  @Min(10)
  @Max(1_000_000)
  @Type(() => Number)
  GRAPHQL_MAX_COST = 5000;

  /**
   * What one rate-limit unit of the `graphql` policy buys: an operation counts ceil(cost / this), at least 1, so
   * an expensive query spends the quota faster than a cheap one.
   */
  @IsInt()
  @Min(1)
  @Type(() => Number)
  GRAPHQL_COST_PER_UNIT = 100;

  /** `true` turns on schema introspection and the GraphiQL page on GET /graphql; off in every NODE_ENV otherwise. */
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'GRAPHQL_INTROSPECTION must be true or false' })
  GRAPHQL_INTROSPECTION = false;

  // Per-user rate limits (docs/adr/0004-rate-limits.md). Quotas are `minute,hour,day`; 0 blocks the policy.

  /** `false` turns the limiter off: nothing counted, no RateLimit headers, never 429. */
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'RATE_LIMITS_ENABLED must be true or false' })
  RATE_LIMITS_ENABLED = true;

  /** Default policy: every authenticated /v1 and /v2 REST route without a policy of its own, per user. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_REST = DEFAULT_QUOTAS.rest;

  /** POST /graphql, per user, counted in cost units (GRAPHQL_COST_PER_UNIT). */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_GRAPHQL = DEFAULT_QUOTAS.graphql;

  /** POST /v2/{endpoint_id}/run, per user and endpoint. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_QUEUE_RUN = DEFAULT_QUOTAS['queue.run'];

  /** POST /v2/{endpoint_id}/runsync, per user and endpoint. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_QUEUE_RUNSYNC = DEFAULT_QUOTAS['queue.runsync'];

  /** /v2/{endpoint_id}/status/{job_id}, per user and endpoint. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_QUEUE_STATUS = DEFAULT_QUOTAS['queue.status'];

  /** /v2/{endpoint_id}/stream/{job_id}, per user and endpoint. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_QUEUE_STREAM = DEFAULT_QUOTAS['queue.stream'];

  /** POST /v2/{endpoint_id}/cancel/{job_id}, per user and endpoint. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_QUEUE_CANCEL = DEFAULT_QUOTAS['queue.cancel'];

  /** POST /v2/{endpoint_id}/purge-queue, per user and endpoint. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_QUEUE_PURGE_QUEUE = DEFAULT_QUOTAS['queue.purge-queue'];

  /** Every request to a load-balancing endpoint (/lb/{endpoint_id}/..., or by host name), per user and endpoint. */
  @Matches(QUOTAS_PATTERN, { message: QUOTAS_MESSAGE })
  RATE_LIMIT_LB = DEFAULT_QUOTAS.lb;

  /** TEST ONLY: window lengths `minute,hour,day` in seconds (e.g. 2,6,12); needs NODE_ENV=test. */
  @Matches(WINDOWS_PATTERN, {
    message: 'RATE_LIMIT_WINDOW_SECONDS must be three positive integers minute,hour,day',
  })
  @Validate(TestOnlyWindows)
  RATE_LIMIT_WINDOW_SECONDS = DEFAULT_WINDOW_SECONDS;

  /** Connections of the limiter's own Postgres pool (kept apart so a stalled limiter cannot starve the app's). */
  @IsInt()
  @Min(1)
  @Max(50)
  @Type(() => Number)
  RATE_LIMIT_POOL_SIZE = 4;

  /** Longest wait for the counter store (a connection, then the statement); past it the request is admitted. */
  @IsInt()
  @Min(10)
  @Type(() => Number)
  RATE_LIMIT_STORE_TIMEOUT_MS = 250;

  /**
   * How often each replica sends its locally counted requests to the shared counters (one statement for all)
   * and learns the other replicas' counts: the overshoot across replicas grows with it (docs/adr/0012).
   */
  @IsInt()
  @Min(10)
  @Max(5000)
  @Type(() => Number)
  RATE_LIMIT_FLUSH_MS = 100;

  /** After a store failure, requests are admitted without asking the store for this long (then it is retried). */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  RATE_LIMIT_STORE_BACKOFF_MS = 1000;

  // Load-balancing endpoints (docs/adr/0026-load-balancing-endpoints.md).

  /**
   * Host-name routing: a request whose Host is `<endpoint_id>.<LB_DOMAIN>` goes to that endpoint's workers, any
   * path (as `https://<endpoint_id>.api.runpod.ai/<path>` does). Empty: off (only `/lb/<endpoint_id>/<path>`).
   */
  @Matches(/^$|^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i, {
    message: 'LB_DOMAIN must be a DNS name (e.g. lb.example.com) or empty',
  })
  LB_DOMAIN = '';

  /** How long a request waits for a ready worker (a cold start) before a 504; 0 answers 504 at once. */
  @IsInt()
  @Min(0)
  @Max(600_000)
  @Type(() => Number)
  LB_COLD_START_WAIT_MS = 60_000;

  /** Longest a worker may take to start answering (the response headers) before a 504. */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  LB_RESPONSE_TIMEOUT_MS = 300_000;

  /** Longest silence between two pieces of a worker's response body (a stream that stalls is cut). */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  LB_IDLE_TIMEOUT_MS = 300_000;

  /**
   * Largest body of an idempotent request (GET, HEAD, OPTIONS, PUT, DELETE) kept in memory so that it can be sent
   * again to another worker when the first dies before answering; a larger one is streamed and not retried.
   */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  LB_RETRY_BODY_BYTES = 1024 * 1024;

  /** How often each replica reports its in-flight and waiting requests per endpoint (to the autoscaler). */
  @IsInt()
  @Min(50)
  @Max(10_000)
  @Type(() => Number)
  LB_REPORT_MS = 500;

  /**
   * How often each replica records its LB request counts and the workers it sees (`job.cmd.record-lb-requests`,
   * endpoint metrics): one command per replica per interval, never one per request.
   */
  @IsInt()
  @Min(100)
  @Max(60_000)
  @Type(() => Number)
  LB_METRICS_FLUSH_MS = 5000;
}
