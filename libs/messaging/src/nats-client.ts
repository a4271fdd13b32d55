import { Logger } from '@nestjs/common';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { busMetrics } from '@app/observability';

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
  ) {
    busMetrics.natsConnected.set(1);
    void this.watchStatus();
  }

  static async connect(servers: string, prefix: string, name: string): Promise<NatsClient> {
    const nc = await connect({
      servers: servers.split(','),
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: false,
      // Otherwise every request and every subscription timeout captures an Error for its stack in case it fails;
      // the buses turn NATS failures into DomainErrors carrying the message only, so the stacks were never read.
      noAsyncTraces: true,
    });
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    return new NatsClient(nc, jetstream(nc, { timeout: 5000 }), jsm, prefix);
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
