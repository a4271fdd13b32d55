import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import {
  DomainError,
  COMMAND_FORMAT,
  DomainOwner,
  ErrorCode,
  deriveId,
  Headers,
  Streams,
  commandOutcomeSubject,
  domainOf,
  type Actor,
  type CommandEnvelope,
  type CommandOutcome,
  type CommandPayload,
  type CommandResult,
  type CommandSubject,
  type Domain,
} from '@app/contracts';
import { BaseConfig } from '@app/config';
import { requestContext } from '@app/observability';
import type { EventEnvelope } from './handler-context.js';
import { NatsClient } from './nats-client.js';
import { OutcomeInbox } from './outcome-inbox.js';
import { QueryBus } from './query-bus.js';

/** How often a duplicate command's caller asks for the recorded outcome while it waits. */
const DUPLICATE_POLL_MS = 200;

export interface ExecuteOptions {
  /** Reuse a command id (idempotent retries by the caller); a fresh UUID otherwise. */
  commandId?: string;
  /** How long to wait for the outcome; the configured COMMAND_TIMEOUT_MS otherwise. */
  timeoutMs?: number;
  /**
   * Issue time; now otherwise. A handler issuing a command passes its own envelope's `issuedAt` (with a command id
   * derived from its own), so a replay issues the very same command.
   */
  issuedAt?: string;
}

/**
 * Issues commands. A command is recorded in the commands stream (JetStream, `Nats-Msg-Id` = command id) before
 * anyone handles it, so it survives the caller going away; the caller then waits for the owner's outcome, and
 * if the wait runs out asks the owner for the recorded outcome before giving up.
 */
@Injectable()
export class CommandBus implements OnApplicationShutdown {
  private readonly inbox: OutcomeInbox;

  constructor(
    private readonly nats: NatsClient,
    private readonly queries: QueryBus,
    private readonly config: BaseConfig,
  ) {
    this.inbox = new OutcomeInbox(nats);
  }

  onApplicationShutdown(): void {
    this.inbox.close();
  }

  envelope<S extends CommandSubject>(
    subject: S,
    payload: CommandPayload<S>,
    actor: Actor,
    commandId: string = randomUUID(),
    issuedAt: string = new Date().toISOString(),
  ): CommandEnvelope<CommandPayload<S>> {
    return {
      commandId,
      issuedAt,
      actor,
      correlationId: requestContext.correlationId(),
      subject,
      payload,
      format: COMMAND_FORMAT,
    };
  }

  async execute<S extends CommandSubject>(
    subject: S,
    payload: CommandPayload<S>,
    actor: Actor,
    options: ExecuteOptions = {},
  ): Promise<CommandResult<S>> {
    const envelope = this.envelope(subject, payload, actor, options.commandId, options.issuedAt);
    const outcome = await this.send(envelope, options.timeoutMs ?? this.config.COMMAND_TIMEOUT_MS);
    if (outcome.ok) return outcome.value as CommandResult<S>;
    throw DomainError.fromPayload(outcome.error);
  }

  /** Records the envelope and waits for its outcome. */
  async send(envelope: CommandEnvelope, timeoutMs: number): Promise<CommandOutcome> {
    const waiting = this.inbox.wait(envelope.commandId, timeoutMs);
    let duplicate: boolean;
    try {
      duplicate = await this.record(envelope);
    } catch (error) {
      waiting.cancel();
      throw error;
    }
    if (duplicate) {
      // Recorded before (a retry, or a replay re-issuing a nested command): its outcome may be in already, and
      // then no new one will be published; if not, it goes to the inbox the first copy named, maybe another
      // process's, so ask for the recorded one until it is there (or the wait runs out).
      const recorded = await this.pollRecorded(envelope, waiting.promise);
      if (recorded) {
        waiting.cancel();
        return recorded;
      }
    }
    const outcome = await waiting.promise;
    if (outcome) return outcome;
    const recorded = await this.recordedOutcome(envelope);
    if (recorded) return recorded;
    throw new DomainError(
      ErrorCode.OwnerUnavailable,
      `${DomainOwner[domainOf(envelope.subject)]} has not applied command ${envelope.commandId} (${envelope.subject}) within ${timeoutMs} ms; ` +
        'it is recorded and will be applied when the service is back',
    );
  }

  /** The recorded outcome, asked for every DUPLICATE_POLL_MS until it exists or `done` settles. */
  private async pollRecorded(
    envelope: CommandEnvelope,
    done: Promise<CommandOutcome | null>,
  ): Promise<CommandOutcome | null> {
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished) {
      const recorded = await this.recordedOutcome(envelope);
      if (recorded) return recorded;
      await Promise.race([done, new Promise((r) => setTimeout(r, DUPLICATE_POLL_MS))]);
    }
    return null;
  }

  private recordedOutcome(envelope: CommandEnvelope): Promise<CommandOutcome | null> {
    return this.queries
      .raw<CommandOutcome | null>(
        commandOutcomeSubject(domainOf(envelope.subject)),
        { commandId: envelope.commandId },
        envelope.actor,
      )
      .catch(() => null);
  }

  /**
   * Records the command an event handler issues in reaction to `event`, for the system acting for `userId`, without
   * waiting for it: its id is derived from the event's (and `part`), so a redelivered event records nothing new,
   * and its time is the event's. Not in REPLAY_MODE: a rebuild replays the command where it was recorded (the event
   * is handled there too, re-emitted by the replayed command that caused it).
   */
  async recordReaction<S extends CommandSubject>(
    event: EventEnvelope,
    part: string,
    subject: S,
    payload: CommandPayload<S>,
    userId: string,
  ): Promise<void> {
    if (this.config.REPLAY_MODE) return;
    const actor: Actor = { userId, kind: 'system' };
    await this.record(
      this.envelope(subject, payload, actor, deriveId(event.eventId, part), event.occurredAt),
    );
  }

  /**
   * How many commands of `domain` are recorded and not yet applied by its owner: its durable consumer's messages
   * not yet delivered, and those delivered but not acknowledged (a command is acknowledged once its transaction
   * committed). 0 means everything recorded so far is applied and its effect readable. DEPENDENCY_UNAVAILABLE when
   * JetStream cannot tell (the owner never ran, so its consumer does not exist yet, or NATS is away).
   */
  async backlog(domain: Domain): Promise<number> {
    try {
      const info = await this.nats.jsm.consumers.info(
        this.nats.streamName(Streams.Commands),
        this.nats.consumerName(domain, 'cmd'),
      );
      return info.num_pending + info.num_ack_pending;
    } catch (error) {
      throw new DomainError(
        ErrorCode.DependencyUnavailable,
        `the command log (NATS JetStream) cannot tell what ${DomainOwner[domain]} has left to apply: ${(error as Error).message}`,
      );
    }
  }

  /**
   * Publishes to the commands stream; resolves once JetStream has stored it, with whether the stream already had
   * it (same command id within the duplicate window).
   */
  async record(envelope: CommandEnvelope): Promise<boolean> {
    const h = natsHeaders();
    h.set(Headers.CorrelationId, envelope.correlationId);
    h.set(Headers.CommandId, envelope.commandId);
    h.set(Headers.OutcomeTo, this.inbox.subject);
    try {
      const ack = await this.nats.js.publish(this.nats.subject(envelope.subject), JSON.stringify(envelope), {
        msgID: envelope.commandId,
        headers: h,
        timeout: this.config.BUS_REQUEST_TIMEOUT_MS,
      });
      return ack.duplicate;
    } catch (error) {
      throw new DomainError(
        ErrorCode.DependencyUnavailable,
        `the command log (NATS JetStream) did not accept the command: ${(error as Error).message}`,
      );
    }
  }
}
