import { Inject, Injectable, Logger } from '@nestjs/common';
import type { JsMsg } from '@nats-io/jetstream';
import { partitionKeyOf, type CommandEnvelope } from '@app/contracts';
import { BaseConfig } from '@app/config';
import { isDatabaseUnavailable } from '@app/database';
import { busMetrics, requestContext } from '@app/observability';
import { deadLetter } from './dead-letters.js';
import { CommandWork } from './command-work.js';
import type { EventContext, EventEnvelope } from './handler-context.js';
import { HandlerRegistry } from './handler-registry.js';
import {
  commandIdentity,
  type BatchItem,
  type MessageIdentity,
  type ProcessResult,
} from './applied-message.js';
import { MessageProcessor } from './message-processor.js';
import { MESSAGING_OPTIONS, type MessagingOptions } from './messaging.options.js';
import { IssuerReplies } from './issuer-replies.js';
import { NatsClient } from './nats-client.js';
import { OutboxRelay } from './outbox-relay.service.js';

export type Kind = 'command' | 'event';

/** A delivered message, read, waiting in its lane. */
export interface Pending {
  kind: Kind;
  msg: JsMsg;
  body: CommandEnvelope | EventEnvelope;
  identity: MessageIdentity;
  key: string | null;
  started: bigint;
  /** The issuer was told its command waits for the database. */
  toldDeferred?: boolean;
}

/** While the database is down, a held message is tried again at most this far apart. */
const DATABASE_RETRY_MAX_MS = 2000;

/**
 * What happens to delivered messages (DurableConsumers runs the consumers and lanes): each is read and given its
 * lane key, a lane's batch is applied in one transaction (MessageProcessor.processBatch), and after the commit
 * each message gets its hints, its outcome and its ack; infrastructure errors are retried with back-off (held
 * while the database is down) and dead-lettered after COMMAND_MAX_DELIVER deliveries.
 */
@Injectable()
export class DeliveryApplier {
  private readonly logger = new Logger('consumers');
  private readonly replies: IssuerReplies;
  private stopping = false;
  /** Every message read and not yet answered (in a lane's queue or its batch). */
  private readonly held = new Set<Pending>();
  /** A batch is waiting for the database: commands arriving meanwhile are told at once (tellDeferred). */
  private databaseDown = false;

  constructor(
    private readonly nats: NatsClient,
    private readonly registry: HandlerRegistry,
    private readonly processor: MessageProcessor,
    private readonly commands: CommandWork,
    private readonly outbox: OutboxRelay,
    private readonly config: BaseConfig,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
  ) {
    this.replies = new IssuerReplies(nats, options.app);
  }

  /** Shutting down: a batch waiting for the database gives its messages back instead. */
  stop(): void {
    this.stopping = true;
  }

  /** Reads a delivered message's envelope and lane key; null (dead-lettered) when it is unreadable. */
  async prepare(kind: Kind, msg: JsMsg): Promise<Pending | null> {
    const subject = this.nats.unprefix(msg.subject);
    let body: CommandEnvelope | EventEnvelope;
    try {
      body = msg.json();
    } catch {
      await this.reject(msg, subject, 'message body is not JSON');
      return null;
    }
    const command = body as CommandEnvelope;
    const identity: MessageIdentity =
      kind === 'command'
        ? commandIdentity(subject, command)
        : {
            id: `evt:${(body as EventEnvelope).eventId}:${this.options.app}`,
            subject,
            issuedAt: (body as EventEnvelope).occurredAt,
            correlationId: body.correlationId,
            actorUserId: 'system',
          };
    if (!identity.id || !identity.issuedAt || !identity.correlationId) {
      await this.reject(msg, subject, 'message lacks its envelope (id, time, correlation id)');
      return null;
    }
    const key = kind === 'command' ? partitionKeyOf(subject, command.payload, command.commandId) : null;
    const pending: Pending = { kind, msg, body, identity, key, started: process.hrtime.bigint() };
    this.held.add(pending);
    // Queued behind a batch that waits for the database, it would wait too: its issuer hears so now.
    if (this.databaseDown && kind === 'command') this.tellDeferred(pending);
    return pending;
  }

  /**
   * Applies a lane's batch in one transaction (MessageProcessor.processBatch), then, after the commit: the
   * outcomes to the callers, the acks, a core NATS hint of each event written, and a kick of the outbox relay.
   * Never throws: a message whose application failed is retried or dead-lettered on its own.
   */
  async applyBatch(kind: Kind, batch: Pending[]): Promise<void> {
    try {
      await this.applyEach(kind, batch);
    } finally {
      for (const item of batch) this.held.delete(item);
    }
  }

  private async applyEach(kind: Kind, batch: Pending[]): Promise<void> {
    let pending: { item: Pending; work: BatchItem }[] = [];
    for (const item of batch) {
      const work = await this.workOf(item);
      if (work) pending.push({ item, work });
    }
    for (let attempt = 1; pending.length; attempt++) {
      let results: (ProcessResult | Error)[];
      try {
        results = await this.processor.processBatch(pending.map((p) => p.work));
      } catch (error) {
        results = pending.map(() => error as Error);
      }
      const waiting: typeof pending = [];
      const emitted: ProcessResult['events'] = [];
      pending.forEach(({ item }, i) => {
        const result = results[i];
        if (!(result instanceof Error)) {
          this.settled(item, result);
          emitted.push(...result.events);
        } else if (!this.stopping && isDatabaseUnavailable(result)) {
          waiting.push(pending[i]);
        } else {
          void this.failed(kind, item.msg, item.identity, result);
        }
      });
      // Only a batch that wrote events has anything to relay (an empty take writes none).
      this.outbox.written(emitted);
      if (!waiting.length) this.databaseDown = false;
      pending = waiting;
      if (pending.length) await this.waitForDatabase(pending, attempt);
    }
  }

  /**
   * While a batch fails because Postgres cannot be reached, holds its messages (telling the server they are still
   * being worked on) and tries again, rather than spending their deliveries: an outage longer than the redelivery
   * back-off would otherwise dead-letter, and lose, commands and events that were never wrong.
   */
  private async waitForDatabase(pending: { item: Pending }[], attempt: number): Promise<void> {
    if (attempt === 1) {
      const first = pending[0].item.identity;
      this.logger.warn(
        `${pending.length} message(s) (first ${first.subject} ${first.id}) wait for the database`,
      );
    }
    this.databaseDown = true;
    for (const { item } of pending) if (item.kind === 'command') this.tellDeferred(item);
    // What waits in the lanes behind this batch is held too, so it is not redelivered meanwhile.
    for (const item of this.held) item.msg.working();
    await new Promise((r) => setTimeout(r, Math.min(250 * attempt, DATABASE_RETRY_MAX_MS)));
  }

  /** What applying the message does; null when it was answered already (a command that fails validation). */
  private async workOf(item: Pending): Promise<BatchItem | null> {
    if (item.kind === 'event') {
      const event = item.body as EventEnvelope;
      const handler = this.registry.events.get(item.identity.subject)!;
      return {
        message: item.identity,
        fresh: !item.msg.redelivered,
        effect: (manager, emit) =>
          requestContext.run({ correlationId: item.identity.correlationId }, () =>
            Promise.resolve(handler({ event, manager, emit } satisfies EventContext as never)),
          ),
      };
    }
    const work = await this.commands.of(item.identity, item.body as CommandEnvelope);
    if ('effect' in work) return { ...work, fresh: !item.msg.redelivered };
    if (work instanceof Error) void this.failed('command', item.msg, item.identity, work);
    else this.settled(item, work);
    return null;
  }

  /** After a commit: a hint of each event written, and the outbox relay woken when any was. */
  committed(results: ProcessResult[]): void {
    for (const result of results) for (const event of result.events) this.replies.hint(event);
    this.outbox.written(results.flatMap((r) => r.events));
  }

  /** After the commit: the outcome to its caller, the ack, the hints, the metrics. */
  private settled(item: Pending, result: ProcessResult): void {
    const { identity, msg } = item;
    // Hints before the outcome: on one connection NATS keeps the order, so whoever gets the answer (a gateway)
    // has seen the change's hint already and drops what it cached of the job.
    for (const event of result.events) this.replies.hint(event);
    if (item.kind === 'command') this.replies.outcome(msg, identity.id, result.outcome);
    msg.ack();
    busMetrics.commandsHandled.inc({
      subject: identity.subject,
      outcome: result.duplicate ? 'duplicate' : result.outcome.ok ? 'ok' : 'error',
    });
    busMetrics.commandSeconds.observe(
      { subject: identity.subject },
      Number(process.hrtime.bigint() - item.started) / 1e9,
    );
  }

  /** The issuer hears that its command waits for the database, once. */
  private tellDeferred(item: Pending): void {
    if (item.kind !== 'command' || item.toldDeferred) return;
    item.toldDeferred = true;
    this.replies.deferred(item.msg, item.identity);
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
        this.replies.outcome(msg, identity.id, outcome);
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
