import { setTimeout as delay } from 'node:timers/promises';
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
import { AdvisoryLeadership } from '@app/database';
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
 * With COMMAND_CONSUMERS=exclusive a command domain is consumed only by the replica that leads it (a Postgres
 * advisory lock per domain, as for the sweeper, ADR 17): a second replica would take every other message, halving
 * each one's batches and doubling the transactions per command; it stands by and takes over instead.
 */
@Injectable()
export class DurableConsumers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('consumers');
  private readonly running: ConsumerMessages[] = [];
  private readonly loops: Promise<void>[] = [];
  private readonly leaderships: AdvisoryLeadership[] = [];
  /** Aborted at shutdown: a replica waiting for a domain's lead stops waiting. */
  private readonly closing = new AbortController();
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
        this.start(
          'command',
          Streams.Commands,
          this.nats.consumerName(domain, 'cmd'),
          `${domain}.cmd.>`,
          this.exclusive() ? `${this.options.app}/commands/${domain}` : null,
        ),
      ),
      ...[...this.registry.events.keys()].map((subject) =>
        this.start('event', Streams.Events, this.nats.consumerName(this.options.app, subject), subject),
      ),
    ]);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.closing.abort();
    this.applier.stop();
    for (const messages of this.running) messages.stop();
    await Promise.allSettled(this.loops);
    // Only now, with nothing of ours left in flight: another replica takes the domains over at its next check.
    await Promise.allSettled(this.leaderships.map((leadership) => leadership.stop()));
  }

  /** A rebuild's apps (REPLAY_MODE) are alone on their database and consume no live commands: no lock. */
  private exclusive(): boolean {
    return this.config.COMMAND_CONSUMERS === 'exclusive' && !this.config.REPLAY_MODE;
  }

  private lead(name: string): AdvisoryLeadership {
    const leadership = new AdvisoryLeadership({
      databaseUrl: this.config.DATABASE_URL,
      name,
      checkMs: this.config.LEADER_CHECK_MS,
      log: (line) => this.logger.log(line),
    });
    this.leaderships.push(leadership);
    leadership.start();
    return leadership;
  }

  private async start(
    kind: Kind,
    stream: string,
    durable: string,
    filter: string,
    leaderName: string | null = null,
  ): Promise<void> {
    const streamName = this.nats.streamName(stream);
    await ensureDurableConsumer(
      this.nats,
      streamName,
      durable,
      this.nats.subject(filter),
      this.config.COMMAND_MAX_DELIVER,
      this.config.COMMAND_ACK_WAIT_MS,
    );
    const leadership = leaderName ? this.lead(leaderName) : null;
    this.loops.push(this.loop(kind, streamName, durable, leadership));
  }

  private async loop(
    kind: Kind,
    stream: string,
    durable: string,
    leadership: AdvisoryLeadership | null,
  ): Promise<void> {
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
      if (leadership && !leadership.isLeader) {
        // The lock is asked for every LEADER_CHECK_MS; looking at the answer more often costs nothing.
        await pause(Math.min(100, this.config.LEADER_CHECK_MS), this.closing.signal);
        continue;
      }
      let watch: NodeJS.Timeout | undefined;
      let messages: ConsumerMessages | undefined;
      try {
        const consumer = await this.nats.js.consumers.get(stream, durable);
        messages = await consumer.consume({ max_messages: bufferMax });
        this.running.push(messages);
        // Another replica leads the domain now (this one's lock session broke and the other took the lock): stop
        // pulling. What is already in the lanes is applied; what was pulled and not yet read is redelivered after
        // COMMAND_ACK_WAIT_MS. Exclusivity is for batch sizes only (the processed rows keep a command from applying
        // twice), so a replica that merely cannot reach Postgres keeps pulling: it tells the issuers at once that
        // their commands wait for the database (ADR 13), as every replica did before.
        if (leadership) {
          const pulling = messages;
          watch = setInterval(() => leadership.heldElsewhere && pulling.stop(), this.config.LEADER_CHECK_MS);
        }
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
      } finally {
        clearInterval(watch);
        if (messages) this.running.splice(this.running.indexOf(messages), 1);
      }
    }
    await lanes.drained();
  }
}

/** Waits `ms`, or less if `signal` aborts first (never rejects). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}
