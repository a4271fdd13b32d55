import type { EntityManager } from 'typeorm';
import type { Actor, CommandEnvelope, EventPayload, EventSubject, RecordedDecision } from '@app/contracts';
import type { LaterCommand } from './applied-message.js';

/**
 * Records an event in the outbox (same transaction); relayed to JetStream after commit. The payload is typed by
 * the subject (`EventContracts`). `part` tells apart several events of one command, since the event id is derived
 * from the command id.
 */
export type EmitEvent = <S extends EventSubject>(
  subject: S,
  payload: EventPayload<S>,
  part?: string | number,
) => Promise<void>;

/** What a command handler gets: the envelope, the validated payload and the transaction it must write through. */
export interface CommandContext<P = unknown> {
  envelope: CommandEnvelope<P>;
  payload: P;
  /** The transaction the effect, the processed-command row and the outbox rows commit in together. */
  manager: EntityManager;
  /** Time of the command, to use instead of the clock so a replay writes the same rows. */
  now: Date;
  emit: EmitEvent;
  /**
   * Only when the replay feed applies a recorded command: what its live application decided where the effect
   * depended on a race, not on the commands before it (a take's leased jobs; recordedDecisionOf). The handler
   * follows it instead of choosing. Undefined live: nothing is looked up for it.
   */
  decided?: RecordedDecision;
  /**
   * The commands this transaction applies after this one (a lane's batch), in order, with their validated payloads:
   * for a handler that reads once for several of them. Empty when the command is applied alone. What they will
   * find may change before they run, through the commands between: a handler keeping reads for them must know
   * what invalidates its reads.
   */
  later?: readonly LaterCommand[];
}

export interface QueryContext<P = unknown> {
  actor: Actor;
  correlationId: string;
  payload: P;
}

export interface EventEnvelope<P = unknown> {
  eventId: string;
  subject: string;
  occurredAt: string;
  correlationId: string;
  payload: P;
}

export interface EventContext<P = unknown> {
  event: EventEnvelope<P>;
  manager: EntityManager;
  emit: EmitEvent;
}
