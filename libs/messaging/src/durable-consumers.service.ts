import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { ConsumerMessages } from '@nats-io/jetstream';
import { Streams, domainOf, domainsOwnedBy, type Domain } from '@app/contracts';
import { BaseConfig } from '@app/config';
import { startupTasks } from '@app/observability';
import { DeliveryApplier, type Kind, type Pending } from './delivery-applier.js';
import { HandlerRegistry } from './handler-registry.js';
import { LaneScheduler } from './lane-scheduler.js';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options.js';
import { NatsClient } from './nats-client.js';
import { ensureDurableConsumer, ensureStreams } from './stream-topology.js';

/**
 * Runs the app's durable pull consumers: one per owned domain on the commands stream, one per handled event
 * subject on the events stream. Delivered messages go to lanes by their partition key (partitionKeyOf; events
 * and unpartitioned domains use one lane) and each lane applies what piled up in one transaction
 * (COMMAND_LANES, COMMAND_BATCH_MAX; docs/adr/0013-command-batching-and-lanes.md) through DeliveryApplier.
 */
@Injectable()
export class DurableConsumers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('consumers');
  private readonly running: ConsumerMessages[] = [];
  private readonly loops: Promise<void>[] = [];
  private stopping = false;

  constructor(
    private readonly nats: NatsClient,
    private readonly registry: HandlerRegistry,
    private readonly applier: DeliveryApplier,
    private readonly config: BaseConfig,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  /**
   * Binds the consumers in the background, once the app's other start-up tasks (the scheduler's fleet load) have
   * finished: the streams and consumers are checked while the app already listens, nothing is consumed before the
   * app's own data is in place, and /readyz answers 503 until every consumer is bound. A handler of a domain the
   * app does not own is a programming error: the boot fails at once.
   */
  onApplicationBootstrap(): void {
    const owned = domainsOwnedBy(this.options.app);
    for (const subject of this.registry.commands.keys()) {
      if (!owned.includes(domainOf(subject))) {
        throw new Error(`${this.options.app} handles ${subject} but does not own ${domainOf(subject)}`);
      }
    }
    void startupTasks.run('consumers', () => this.bind(owned), startupTasks.settled());
  }

  private async bind(owned: Domain[]): Promise<void> {
    await ensureStreams(this.nats);
    const domains = owned.filter((d) => [...this.registry.commands.keys()].some((s) => domainOf(s) === d));
    await Promise.all([
      ...domains.map((domain) =>
        this.start('command', Streams.Commands, this.nats.consumerName(domain, 'cmd'), `${domain}.cmd.>`),
      ),
      ...[...this.registry.events.keys()].map((subject) =>
        this.start('event', Streams.Events, this.nats.consumerName(this.options.app, subject), subject),
      ),
    ]);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.applier.stop();
    for (const messages of this.running) messages.stop();
    await Promise.allSettled(this.loops);
  }

  private async start(kind: Kind, stream: string, durable: string, filter: string): Promise<void> {
    const streamName = this.nats.streamName(stream);
    await ensureDurableConsumer(
      this.nats,
      streamName,
      durable,
      this.nats.subject(filter),
      this.config.COMMAND_MAX_DELIVER,
      this.config.COMMAND_ACK_WAIT_MS,
    );
    this.loops.push(this.loop(kind, streamName, durable));
  }

  private async loop(kind: Kind, stream: string, durable: string): Promise<void> {
    const lanes = new LaneScheduler<Pending>(
      kind === 'command' ? this.config.COMMAND_LANES : 1,
      this.config.COMMAND_BATCH_MAX,
      (batch) => this.applier.applyBatch(kind, batch),
      (error, batch) =>
        // A bug, not an outage (applyBatch answers every message): the messages are redelivered after ack_wait.
        this.logger.error(`a batch of ${batch.length} on ${durable} failed: ${(error as Error).message}`),
    );
    const bufferMax = this.config.COMMAND_BATCH_MAX * Math.max(this.config.COMMAND_LANES, 2);
    while (!this.stopping) {
      try {
        const consumer = await this.nats.js.consumers.get(stream, durable);
        const messages = await consumer.consume({ max_messages: bufferMax });
        this.running.push(messages);
        for await (const msg of messages) {
          const pending = await this.applier.prepare(kind, msg);
          if (pending) lanes.push(pending.key, pending);
          await lanes.roomFor(bufferMax);
          if (this.stopping) break;
        }
      } catch (error) {
        if (this.stopping) break;
        this.logger.warn(`consumer ${durable} interrupted: ${(error as Error).message}; resuming`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    await lanes.drained();
  }
}
