import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** How a process reaches the deployment's bus: what the apps and the operators' tools (replay) share. */
export class BusConfig {
  @Matches(/^(nats|tls):\/\/\S+(,(nats|tls):\/\/\S+)*$/, {
    message: 'NATS_URL must be one or more nats:// URLs separated by commas',
  })
  NATS_URL = 'nats://127.0.0.1:4222';

  /** Prefix of every subject, stream and consumer name, so deployments and test runs sharing a server never meet. */
  @Matches(/^[A-Za-z][A-Za-z0-9]{0,31}$/, {
    message: 'NATS_PREFIX must be 1-32 letters or digits, starting with a letter',
  })
  NATS_PREFIX = 'gpucp';

  /**
   * Replicas of the JetStream streams and buckets the apps create (and raise existing ones to): 1 on a single
   * server, 3 on a three-server JetStream cluster (deploy/components/nats-cluster), which then survives the loss
   * of one server with nothing acknowledged lost.
   */
  @IsInt()
  @Min(1)
  @Max(5)
  @Type(() => Number)
  NATS_STREAM_REPLICAS = 1;

  /**
   * User and password on the bus, for a NATS server that requires authentication (deploy/ gives every app a user
   * of its own). Both or neither; unset, the connection is anonymous (a local nats-server on loopback).
   */
  @ValidateIf((c: BusConfig) => c.NATS_USER !== undefined || c.NATS_PASSWORD !== undefined)
  @Matches(/^[^\s,:@]{1,128}$/, {
    message:
      'NATS_USER must be 1-128 characters without spaces, commas, colons or @ (and is needed with NATS_PASSWORD)',
  })
  NATS_USER?: string;

  @ValidateIf((c: BusConfig) => c.NATS_USER !== undefined || c.NATS_PASSWORD !== undefined)
  @Matches(/^\S{8,1024}$/, {
    message: 'NATS_PASSWORD must be 8-1024 characters without spaces (and is needed with NATS_USER)',
  })
  NATS_PASSWORD?: string;

  /** Request-reply timeout for queries and for waiting on a command's outcome. */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  BUS_REQUEST_TIMEOUT_MS = 5000;

  /** How long the edge waits for a command's outcome before answering 503 (the command is still applied). */
  @IsInt()
  @Min(100)
  @Type(() => Number)
  COMMAND_TIMEOUT_MS = 15000;
}

/**
 * Settings every app shares. Each app extends it with its own; `loadConfig` validates the environment once at
 * boot and nothing else reads `process.env`. Every variable is listed in `.env.example`.
 */
export class BaseConfig extends BusConfig {
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// connection URL' })
  DATABASE_URL: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  @Type(() => Number)
  DATABASE_POOL_SIZE = 10;

  @IsInt()
  @Min(0)
  @Max(65535)
  @Type(() => Number)
  HTTP_PORT: number;

  /**
   * Address the HTTP port binds. Loopback by default: the internal apps serve only probes, and nothing outside the
   * host should reach them; the gateway (the public edge) overrides it, and a deployment sets it where probes need
   * it (deploy/: the pod's address, kept in by NetworkPolicy). docs/adr/0014-edge-hardening.md.
   */
  @IsString()
  @MinLength(1)
  HTTP_HOST = '127.0.0.1';

  /**
   * Port of the separate Prometheus listener serving only `GET /metrics` (never on HTTP_PORT, so the gateway's
   * public port cannot leak it); each app has its own default (9080-9084), 0 picks a free port.
   */
  @IsInt()
  @Min(0)
  @Max(65535)
  @Type(() => Number)
  METRICS_PORT: number;

  /** Address the metrics port binds: loopback unless a deployment lets its scraper in (deploy/: in-cluster only). */
  @IsString()
  @MinLength(1)
  METRICS_HOST = '127.0.0.1';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'production';

  /** How long SIGTERM waits for in-flight work before the process exits. */
  @IsInt()
  @Min(0)
  @Type(() => Number)
  SHUTDOWN_GRACE_MS = 10000;

  /**
   * Work that runs once across replicas (the autoscaler's control loop, the broker's sweeper) is led by the
   * replica holding a Postgres advisory lock; followers ask for it this often, so a new leader takes over within
   * about this long after the old one dies.
   */
  @IsInt()
  @Min(100)
  @Max(60_000)
  @Type(() => Number)
  LEADER_CHECK_MS = 1000;

  /** Deliveries of one command before it goes to the dead-letter stream. */
  @IsInt()
  @Min(1)
  @Max(100)
  @Type(() => Number)
  COMMAND_MAX_DELIVER = 5;

  /**
   * How long a delivered command may stay unacknowledged before JetStream delivers it again (to this or another
   * replica): the time a crashed owner's in-flight command waits before it is retried.
   */
  @IsInt()
  @Min(1000)
  @Type(() => Number)
  COMMAND_ACK_WAIT_MS = 30000;

  /**
   * Parallel lanes per partitioned command domain (jobs, workers): commands of one job or worker stay in order in
   * one lane, different ones are applied side by side. Other domains and events always use one lane.
   */
  @IsInt()
  @Min(1)
  @Max(64)
  @Type(() => Number)
  COMMAND_LANES = 4;

  /** Most commands a lane applies in one transaction (what piled up while the previous one committed). */
  @IsInt()
  @Min(1)
  @Max(1000)
  @Type(() => Number)
  COMMAND_BATCH_MAX = 64;

  /**
   * `exclusive`: each owned command domain is consumed by one replica at a time, the holder of a Postgres advisory
   * lock (`<app>/commands/<domain>`), and another replica takes over within LEADER_CHECK_MS of its death; batches
   * stay as large as with one replica. `shared`: every replica pulls from the domain's durable consumer, so each
   * gets a share of the commands and batches shrink with the replica count. The queue-broker defaults to
   * `exclusive` (its job and worker commands are the hot path), the other apps to `shared`.
   */
  @IsIn(['exclusive', 'shared'])
  COMMAND_CONSUMERS: 'exclusive' | 'shared' = 'shared';

  /** Test-only fault injection, e.g. `crash-before-commit:registry-auth.cmd.create`. Never set in production. */
  @IsOptional()
  @Matches(/^(crash-before-commit|crash-after-commit):[a-z0-9.-]+$/, {
    message: 'FAULT_INJECT must be crash-before-commit:<subject> or crash-after-commit:<subject>',
  })
  FAULT_INJECT?: string;

  /**
   * `true` only for the apps a rebuild (`npm run replay -- rebuild`) starts: they apply the recorded commands they
   * are given and nothing else, so no runtime driver, autoscaler loop, job sweeper or webhook sender runs.
   */
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'REPLAY_MODE must be true or false' })
  REPLAY_MODE = false;
}

/** What `migrate` needs: only the database. */
export class MigrationConfig {
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// connection URL' })
  DATABASE_URL: string;
}
