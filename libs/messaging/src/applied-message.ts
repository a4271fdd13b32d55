import type { EntityManager } from 'typeorm';
import type { CommandEnvelope, CommandOutcome, ErrorPayload } from '@app/contracts';

/** The identity of a message to apply once: a command (command id) or an event (event id). */
export interface MessageIdentity {
  id: string;
  subject: string;
  issuedAt: string;
  correlationId: string;
  actorUserId: string;
}

/** The identity of a command as delivered on `subject` (unprefixed). */
export function commandIdentity(subject: string, command: CommandEnvelope): MessageIdentity {
  return {
    id: command.commandId,
    subject,
    issuedAt: command.issuedAt,
    correlationId: command.correlationId,
    actorUserId: command.actor?.userId ?? 'unknown',
  };
}

export type Emit = (subject: string, payload: unknown, part?: string | number) => Promise<void>;

/** A command a batch applies after the one at hand: its subject and validated payload (BatchItem.ahead). */
export interface LaterCommand {
  subject: string;
  payload: unknown;
}

/** `later`: the commands its transaction applies after this one, in order (none when it is applied alone). */
export type Effect = (
  manager: EntityManager,
  emit: Emit,
  later?: readonly LaterCommand[],
) => Promise<unknown>;

/** An event a committed message wrote to the outbox, as the relay will publish it. */
export interface EmittedEvent {
  id: string;
  subject: string;
  payload: unknown;
  correlationId: string;
  occurredAt: string;
}

export interface ProcessResult {
  outcome: CommandOutcome;
  /** True when the message had been applied before: nothing was changed this time. */
  duplicate: boolean;
  /** The events this application wrote to the outbox (none for a duplicate or a failure). */
  events: EmittedEvent[];
}

/** One message of a batch: who it is and what applying it does. */
export interface BatchItem {
  message: MessageIdentity;
  effect: Effect;
  /**
   * The transport's first delivery of the message: it is applied without looking for its record first (a round
   * trip per command on the hot path). Should it have been applied after all (a client sending one command id
   * twice), the processed row's primary key refuses the second, its effect is rolled back, and it is answered from
   * the record, as a redelivery is.
   */
  fresh?: boolean;
  /**
   * The audit entry of the command's refusal, for a subject that is audited (AUDIT_RULES): written to the outbox
   * with the refusal's processed row (its success writes its own, in its effect). Absent on every other message.
   */
  audit?: AuditOfRefusal;
  /** What the items before it in a batch are shown of it (their effects' `later`): a command's subject and payload. */
  ahead?: LaterCommand;
}

/** The `audit.evt.recorded` payload of a refused command (null: its rule records no entry for it). */
export type AuditOfRefusal = (error: ErrorPayload) => unknown;
