import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import {
  COMMAND_FORMAT,
  CommandPayloadClasses,
  DomainError,
  ErrorCode,
  Headers,
  validatePlain,
  type Actor,
  type CommandEnvelope,
  type CommandPayload,
  type CommandResult,
  type CommandSubject,
} from '@app/contracts';
import { BaseConfig } from '@app/config';
import {
  FaultInjector,
  MessageProcessor,
  audited,
  NatsClient,
  commandIdentity,
  ensureStreams,
  type CommandContext,
  type EmittedEvent,
} from '@app/messaging';
import { AccountCommands } from '../accounts/account-commands.js';
import { ACCOUNT_HANDLERS, isAccountSubject, type AccountHandler } from '../accounts/account-handlers.js';

/**
 * The keys CLI's way of issuing account commands: it records each in the deployment's commands stream, exactly as
 * the gateway's command bus would, then applies it itself with the gateway's own handler and processed-commands
 * row. An operator can so create the first user before any app runs; a running gateway's consumer, delivered the
 * same command, finds it applied (or applies it first, and the CLI reads that outcome). A rebuild applies it again
 * like any other. The events it wrote are published at once (the gateway's outbox relay would within a second;
 * the same event id, so stored once).
 */
export class LocalAccountCommands extends AccountCommands {
  private readonly processor: MessageProcessor;

  /** `handlerOf`: the instance of a handler class (the CLI's Nest context's `get`). */
  constructor(
    private readonly handlerOf: (
      type: (typeof ACCOUNT_HANDLERS)[keyof typeof ACCOUNT_HANDLERS],
    ) => AccountHandler,
    dataSource: DataSource,
    config: BaseConfig,
    private readonly nats: NatsClient,
  ) {
    super();
    this.processor = new MessageProcessor(dataSource, new FaultInjector(config));
  }

  /** In the keys CLI: the handlers, database and config of its Nest context. */
  static of(app: INestApplicationContext, nats: NatsClient): LocalAccountCommands {
    return new LocalAccountCommands(
      (type) => app.get<AccountHandler>(type),
      app.get(DataSource),
      app.get(BaseConfig),
      nats,
    );
  }

  async execute<S extends CommandSubject>(subject: S, payload: CommandPayload<S>, actor: Actor) {
    if (!isAccountSubject(subject)) {
      throw new Error(`the keys CLI applies account commands only, not ${subject}`);
    }
    const envelope: CommandEnvelope = {
      commandId: randomUUID(),
      issuedAt: new Date().toISOString(),
      actor,
      correlationId: randomUUID(),
      subject,
      payload,
      format: COMMAND_FORMAT,
    };
    // Refused before it is recorded, as the edge refuses a bad request: a rebuild then has nothing to refuse again.
    const payloadClass: new () => object = CommandPayloadClasses[subject];
    const validated = validatePlain(payloadClass, payload);
    if (!validated.ok) {
      throw new DomainError(ErrorCode.ValidationFailed, `invalid ${subject} command`, validated.errors);
    }
    await this.record(envelope);
    const handler = this.handlerOf(ACCOUNT_HANDLERS[subject]);
    // Applied as the gateway's consumers apply it (CommandWork): its audit entry with it, success or refusal.
    const { effect, audit } = audited(subject, envelope, (manager, emit) =>
      handler.handle({
        envelope,
        payload: validated.value,
        manager,
        now: new Date(envelope.issuedAt),
        emit,
      } as CommandContext as never),
    );
    const result = await this.processor.process(commandIdentity(subject, envelope), effect, audit);
    await this.publish(result.events);
    if (!result.outcome.ok) throw DomainError.fromPayload(result.outcome.error);
    return result.outcome.value as CommandResult<S>;
  }

  private async record(envelope: CommandEnvelope): Promise<void> {
    await ensureStreams(this.nats);
    const h = natsHeaders();
    h.set(Headers.CorrelationId, envelope.correlationId);
    h.set(Headers.CommandId, envelope.commandId);
    await this.nats.js.publish(this.nats.subject(envelope.subject), JSON.stringify(envelope), {
      msgID: envelope.commandId,
      headers: h,
    });
  }

  private async publish(events: EmittedEvent[]): Promise<void> {
    for (const event of events) {
      const h = natsHeaders();
      h.set(Headers.CorrelationId, event.correlationId);
      await this.nats.js.publish(
        this.nats.subject(event.subject),
        JSON.stringify({
          eventId: event.id,
          subject: event.subject,
          occurredAt: event.occurredAt,
          correlationId: event.correlationId,
          payload: event.payload,
        }),
        { msgID: event.id, headers: h },
      );
    }
  }
}
