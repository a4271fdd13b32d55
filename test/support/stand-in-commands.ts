import {
  DomainError,
  ErrorCode,
  type Actor,
  type CommandPayload,
  type CommandResult,
  type CommandSubject,
} from '@app/contracts';
import type { CommandBus } from '@app/messaging';

type Reply<S extends CommandSubject> = (payload: CommandPayload<S>, actor: Actor) => CommandResult<S>;

/**
 * Another app's answers to the commands a handler issues and waits for (the scheduler's `placement.cmd.reserve`,
 * say), where a test of one app stands in for the other: what the test registered, and OWNER_UNAVAILABLE (as from
 * the bus when the owner is down) for the rest. A DomainError thrown by an answer is the command's refusal.
 */
export class StandInCommands {
  private readonly replies = new Map<string, (payload: never, actor: Actor) => unknown>();
  /** Every command issued, in order. */
  readonly issued: {
    subject: string;
    payload: unknown;
    actor: Actor;
    options?: { commandId?: string; issuedAt?: string };
  }[] = [];

  answer<S extends CommandSubject>(subject: S, reply: Reply<S>): this {
    this.replies.set(subject, reply);
    return this;
  }

  /** The payloads of the commands issued on `subject`, in order. */
  sent<S extends CommandSubject>(subject: S): CommandPayload<S>[] {
    return this.issued.filter((c) => c.subject === subject).map((c) => c.payload as CommandPayload<S>);
  }

  execute<S extends CommandSubject>(
    subject: S,
    payload: unknown,
    actor: Actor,
    options?: { commandId?: string; issuedAt?: string },
  ): Promise<CommandResult<S>> {
    this.issued.push({ subject, payload, actor, ...(options ? { options } : {}) });
    const reply = this.replies.get(subject);
    if (!reply) {
      return Promise.reject(
        new DomainError(ErrorCode.OwnerUnavailable, `no answer for ${subject} in this test`),
      );
    }
    try {
      return Promise.resolve(reply(payload as never, actor) as CommandResult<S>);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Typed as the CommandBus a handler takes: only `execute` is offered (a test needing more uses InProcessCommands). */
  asBus(): CommandBus {
    return this as unknown as CommandBus;
  }
}
