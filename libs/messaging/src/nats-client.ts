import { Logger } from '@nestjs/common';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { BusConfig } from '@app/config';
import { busMetrics } from '@app/observability';
import { installRequestCancelFix } from './nats-request-cancel.js';

/** How a process authenticates to NATS: nothing (anonymous) or a user and password. */
export interface NatsAuth {
  user?: string;
  pass?: string;
}

/** The credentials the bus settings name (NATS_USER, NATS_PASSWORD), or none. */
export function natsAuth(config: Pick<BusConfig, 'NATS_USER' | 'NATS_PASSWORD'>): NatsAuth {
  return config.NATS_USER && config.NATS_PASSWORD
    ? { user: config.NATS_USER, pass: config.NATS_PASSWORD }
    : {};
}

/** The options of every process's connection: its servers and name, its credentials, reconnecting forever. */
export function natsConnectionOptions(servers: string, name: string, auth: NatsAuth = {}): ConnectionOptions {
  installRequestCancelFix();
  return {
    servers: servers.split(','),
    name,
    ...auth,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    // Otherwise every request and every subscription timeout captures an Error for its stack in case it fails;
    // the buses turn NATS failures into DomainErrors carrying the message only, so the stacks were never read.
    noAsyncTraces: true,
  };
}

/**
 * One NATS connection per process, with the JetStream client and manager, and the deployment prefix that every
 * subject, stream and consumer name carries. Reconnects forever; drained on shutdown.
 */
export class NatsClient {
  private readonly logger = new Logger('nats');

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly prefix: string,
    /** Replicas of the streams and buckets this process creates (NATS_STREAM_REPLICAS). */
    readonly streamReplicas = 1,
  ) {
    busMetrics.natsConnected.set(1);
    void this.watchStatus();
  }

  static async connect(
    servers: string,
    prefix: string,
    name: string,
    auth: NatsAuth = {},
    streamReplicas = 1,
  ): Promise<NatsClient> {
    const nc = await connect(natsConnectionOptions(servers, name, auth));
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    return new NatsClient(nc, jetstream(nc, { timeout: 5000 }), jsm, prefix, streamReplicas);
  }

  /** `registry-auth.cmd.create` → `<prefix>.registry-auth.cmd.create`. */
  subject(unprefixed: string): string {
    return `${this.prefix}.${unprefixed}`;
  }

  /** Strips the prefix from a subject received on the wire. */
  unprefix(subject: string): string {
    return subject.startsWith(`${this.prefix}.`) ? subject.slice(this.prefix.length + 1) : subject;
  }

  streamName(name: string): string {
    return `${this.prefix}_${name}`;
  }

  /** Consumer names allow only letters, digits, `-` and `_`. */
  consumerName(...parts: string[]): string {
    return [this.prefix, ...parts].join('_').replace(/[^A-Za-z0-9_-]/g, '_');
  }

  isConnected(): boolean {
    return this.connected && !this.nc.isClosed() && !this.nc.isDraining();
  }

  private connected = true;

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case 'disconnect':
          this.connected = false;
          busMetrics.natsConnected.set(0);
          this.logger.warn(`disconnected from NATS ${status.server}`);
          break;
        case 'reconnect':
          this.connected = true;
          busMetrics.natsConnected.set(1);
          this.logger.log(`reconnected to NATS ${status.server}`);
          break;
        default:
          break;
      }
    }
  }

  async drain(): Promise<void> {
    if (this.nc.isClosed()) return;
    try {
      await this.nc.drain();
    } catch (error) {
      this.logger.warn(`NATS drain failed: ${(error as Error).message}`);
    }
  }
}
