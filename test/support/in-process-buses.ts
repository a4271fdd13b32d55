import {
  DomainError,
  ErrorCode,
  deriveId,
  type Actor,
  type CommandResult,
  type CommandSubject,
  type Domain,
  type QueryPayload,
  type QueryResult,
  type QuerySubject,
} from '@app/contracts';
import type { CommandBus, QueryBus } from '@app/messaging';
import type { HandlerHarness } from './handler-harness.js';

type Answer<S extends QuerySubject> = (payload: QueryPayload<S>, actor: Actor) => QueryResult<S>;

/**
 * Another app's answers to the queries a handler asks (a template, a volume, the spend status), for the handlers
 * that ask any: what the test registered, and OWNER_UNAVAILABLE (as from the bus when nobody answers) for the rest.
 * Only the other app is stood in for; the handler, its repositories, Postgres and the transaction are real.
 */
export class InProcessQueries {
  private readonly answers = new Map<string, (payload: never, actor: Actor) => unknown>();
  /** Every query asked, in order. */
  readonly asked: { subject: string; payload: unknown; actor: Actor }[] = [];

  answer<S extends QuerySubject>(subject: S, answer: Answer<S>): this {
    this.answers.set(subject, answer);
    return this;
  }

  /** From now on nobody answers `subject` (OWNER_UNAVAILABLE), as when its owner is down. */
  forget(subject: QuerySubject): this {
    this.answers.delete(subject);
    return this;
  }

  query<S extends QuerySubject>(subject: S, payload: QueryPayload<S>, actor: Actor): Promise<QueryResult<S>> {
    this.asked.push({ subject, payload, actor });
    const answer = this.answers.get(subject);
    if (!answer) {
      return Promise.reject(
        new DomainError(ErrorCode.OwnerUnavailable, `no answer for ${subject} in this test`),
      );
    }
    try {
      return Promise.resolve(answer(payload as never, actor) as QueryResult<S>);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Typed as the QueryBus a handler takes: only `query` is ever called by the handlers tested this way. */
  asBus(): QueryBus {
    return this as unknown as QueryBus;
  }
}

/**
 * The bus a handler issues another app's commands on (pod-lifecycle's `placement.cmd.reserve`, say), delivering
 * them to that app's real handlers in its own harness, with the command id and time the issuer chose, as the
 * owner's consumer would.
 */
export class InProcessCommands {
  constructor(private readonly owner: HandlerHarness) {}

  execute<S extends CommandSubject>(
    subject: S,
    payload: unknown,
    actor: Actor,
    options: { commandId?: string; issuedAt?: string } = {},
  ): Promise<CommandResult<S>> {
    return this.owner.send(subject, payload, { actor, ...options });
  }

  /** Nothing is ever left to apply: a command is applied as it is sent. */
  backlog(_domain: Domain): Promise<number> {
    return Promise.resolve(0);
  }

  /**
   * What CommandBus.recordReaction does, and the owner's consumer after it: the command (its id derived from the
   * event's) is applied at once, in a transaction of its own; a refusal is the command's outcome, not an error.
   */
  async recordReaction(
    event: { eventId: string; occurredAt: string },
    part: string,
    subject: CommandSubject,
    payload: unknown,
    userId: string,
  ): Promise<void> {
    await this.owner
      .send(subject, payload, {
        actor: { userId, kind: 'system' },
        commandId: deriveId(event.eventId, part),
        issuedAt: event.occurredAt,
      })
      .catch(() => undefined);
  }

  /** Typed as the CommandBus a handler takes: `execute` and `recordReaction` are what it offers. */
  asBus(): CommandBus {
    return this as unknown as CommandBus;
  }
}
