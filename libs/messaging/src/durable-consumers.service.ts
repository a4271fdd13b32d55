import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import {
  CommandPayloadClasses,
  DomainError,
  ErrorCode,
  Streams,
  domainOf,
  domainsOwnedBy,
  validatePlain,
  type CommandEnvelope,
  type CommandOutcome,
  type CommandSubject,
} from '@app/contracts';
import { BaseConfig } from '@app/config';
import { isDatabaseUnavailable } from '@app/database';
import { busMetrics, requestContext } from '@app/observability';
import { deadLetter } from './dead-letters.js';
import type { CommandContext, EventContext, EventEnvelope } from './handler-context.js';
import { HandlerRegistry } from './handler-registry.js';
import { MessageProcessor, type MessageIdentity, type ProcessResult } from './message-processor.js';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options.js';
import { NatsClient } from './nats-client.js';
import { OutboxRelay } from './outbox-relay.service.js';
import { ensureDurableConsumer, ensureStreams } from './stream-topology.js';

type Kind = 'command' | 'event';

/** While the database is down, a held message is tried again at most this far apart. */
const DATABASE_RETRY_MAX_MS = 2000;

/**
 * Runs the app's durable pull consumers: one per owned domain on the commands stream, one per handled event
 * subject on the events stream. Each message is applied once (MessageProcessor), acked after commit, redelivered
 * with back-off on infrastructure errors, and dead-lettered after COMMAND_MAX_DELIVER deliveries.
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
    private readonly processor: MessageProcessor,
    private readonly outbox: OutboxRelay,
    private readonly config: BaseConfig,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureStreams(this.nats);
    const owned = domainsOwnedBy(this.options.app);
    for (const subject of this.registry.commands.keys()) {
      if (!owned.includes(domainOf(subject))) {
        throw new Error(`${this.options.app} handles ${subject} but does not own ${domainOf(subject)}`);
      }
    }
    const domains = owned.filter((d) => [...this.registry.commands.keys()].some((s) => domainOf(s) === d));
    for (const domain of domains) {
      await this.start('command', Streams.Commands, this.nats.consumerName(domain, 'cmd'), `${domain}.cmd.>`);
    }
    for (const subject of this.registry.events.keys()) {
      await this.start('event', Streams.Events, this.nats.consumerName(this.options.app, subject), subject);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
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
    while (!this.stopping) {
      try {
        const consumer = await this.nats.js.consumers.get(stream, durable);
        const messages = await consumer.consume({ max_messages: 64 });
        this.running.push(messages);
        for await (const msg of messages) {
          await this.handle(kind, msg);
          if (this.stopping) break;
        }
      } catch (error) {
        if (this.stopping) break;
        this.logger.warn(`consumer ${durable} interrupted: ${(error as Error).message}; resuming`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private async handle(kind: Kind, msg: JsMsg): Promise<void> {
    const subject = this.nats.unprefix(msg.subject);
    let body: CommandEnvelope | EventEnvelope;
    try {
      body = msg.json();
    } catch {
      await this.reject(msg, subject, 'message body is not JSON');
      return;
    }
    const identity: MessageIdentity =
      kind === 'command'
        ? {
            id: (body as CommandEnvelope).commandId,
            subject,
            issuedAt: (body as CommandEnvelope).issuedAt,
            correlationId: body.correlationId,
            actorUserId: (body as CommandEnvelope).actor?.userId ?? 'unknown',
          }
        : {
            id: `evt:${(body as EventEnvelope).eventId}:${this.options.app}`,
            subject,
            issuedAt: (body as EventEnvelope).occurredAt,
            correlationId: body.correlationId,
            actorUserId: 'system',
          };
    if (!identity.id || !identity.issuedAt || !identity.correlationId) {
      await this.reject(msg, subject, 'message lacks its envelope (id, time, correlation id)');
      return;
    }
    const started = process.hrtime.bigint();
    await requestContext.run({ correlationId: identity.correlationId }, async () => {
      try {
        const apply = () =>
          kind === 'command'
            ? this.applyCommand(body as CommandEnvelope, identity)
            : this.applyEvent(body as EventEnvelope, identity);
        const result = await this.whileDatabaseDown(msg, identity, apply);
        if (kind === 'command') this.publishOutcome(identity.id, result.outcome);
        msg.ack();
        if (!result.duplicate) this.outbox.kick();
        busMetrics.commandsHandled.inc({
          subject,
          outcome: result.duplicate ? 'duplicate' : result.outcome.ok ? 'ok' : 'error',
        });
      } catch (error) {
        await this.failed(kind, msg, identity, error as Error);
      } finally {
        busMetrics.commandSeconds.observe({ subject }, Number(process.hrtime.bigint() - started) / 1e9);
      }
    });
  }

  /**
   * Runs `apply`; while it fails because Postgres cannot be reached, holds the message (telling the server it is
   * still being worked on) and tries again, rather than spending its deliveries: an outage longer than the
   * redelivery back-off would otherwise dead-letter, and lose, commands and events that were never wrong.
   */
  private async whileDatabaseDown<T>(
    msg: JsMsg,
    identity: MessageIdentity,
    apply: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await apply();
      } catch (error) {
        if (this.stopping || !isDatabaseUnavailable(error)) throw error;
        if (attempt === 1) {
          this.logger.warn(
            `${identity.subject} ${identity.id} waits for the database: ${(error as Error).message}`,
          );
        }
        msg.working();
        await new Promise((r) => setTimeout(r, Math.min(250 * attempt, DATABASE_RETRY_MAX_MS)));
      }
    }
  }

  private async applyCommand(envelope: CommandEnvelope, identity: MessageIdentity): Promise<ProcessResult> {
    const handler = this.registry.commands.get(identity.subject);
    const payloadClass = CommandPayloadClasses[identity.subject as CommandSubject];
    if (!handler || !payloadClass) {
      throw new DomainError(ErrorCode.Internal, `no handler for ${identity.subject} in ${this.options.app}`);
    }
    const validated = validatePlain(payloadClass as new () => object, envelope.payload);
    if (!validated.ok) {
      return this.processor.recordFailure(identity, {
        code: ErrorCode.ValidationFailed,
        message: `invalid ${identity.subject} command`,
        errors: validated.errors,
      });
    }
    return this.processor.process(identity, (manager, emit) => {
      const context: CommandContext = {
        envelope,
        payload: validated.value,
        manager,
        now: new Date(envelope.issuedAt),
        emit,
      };
      return Promise.resolve(handler(context as never));
    });
  }

  private applyEvent(event: EventEnvelope, identity: MessageIdentity): Promise<ProcessResult> {
    const handler = this.registry.events.get(identity.subject)!;
    return this.processor.process(identity, (manager, emit) => {
      const context: EventContext = { event, manager, emit };
      return Promise.resolve(handler(context as never));
    });
  }

  private publishOutcome(commandId: string, outcome: CommandOutcome): void {
    try {
      this.nats.nc.publish(this.nats.subject(`outcome.${commandId}`), JSON.stringify(outcome));
    } catch {
      // The caller falls back to asking for the recorded outcome.
    }
  }

  private async failed(kind: Kind, msg: JsMsg, identity: MessageIdentity, error: Error): Promise<void> {
    const attempt = msg.info.deliveryCount;
    if (attempt < this.config.COMMAND_MAX_DELIVER) {
      this.logger.warn(
        `${identity.subject} ${identity.id} failed (attempt ${attempt}): ${error.message}; will retry`,
      );
      msg.nak(Math.min(250 * 2 ** attempt, 10_000));
      return;
    }
    this.logger.error(
      `${identity.subject} ${identity.id} failed ${attempt} times, dead-lettered: ${error.message}`,
    );
    busMetrics.commandsHandled.inc({ subject: identity.subject, outcome: 'dead_letter' });
    try {
      await deadLetter(this.nats, msg, error.message);
      if (kind === 'command') {
        const { outcome } = await this.processor.recordFailure(
          identity,
          MessageProcessor.internalError(`command could not be applied after ${attempt} attempts`),
        );
        this.publishOutcome(identity.id, outcome);
      }
      msg.term();
    } catch (dlqError) {
      this.logger.error(`could not dead-letter ${identity.id}: ${(dlqError as Error).message}`);
      msg.nak(10_000);
    }
  }

  private async reject(msg: JsMsg, subject: string, reason: string): Promise<void> {
    this.logger.error(`rejecting message ${msg.seq} on ${subject}: ${reason}`);
    await deadLetter(this.nats, msg, reason).catch(() => undefined);
    msg.term();
  }
}
