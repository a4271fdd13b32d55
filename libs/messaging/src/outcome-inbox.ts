import { randomBytes } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import { outcomeSubject, type CommandOutcome } from '@app/contracts';
import type { NatsClient } from './nats-client.js';

export interface OutcomeWait {
  /** The outcome, or null when none came within the time (or the wait was cancelled). */
  promise: Promise<CommandOutcome | null>;
  cancel(): void;
}

/**
 * This process's one subscription for the outcomes of the commands it issues: `<prefix>.outcome.<process>.*`.
 * The command names the inbox (Headers.OutcomeTo); the owner publishes the outcome to `<inbox>.<commandId>`. One
 * subscription instead of a subscribe and an unsubscribe per command (two protocol messages, and the server's
 * interest graph changing on every request). An owner whose database is down sends a deferral notice instead
 * (Headers.OutcomeDeferred): it settles the wait as an OWNER_UNAVAILABLE error, so the caller answers 503 at once;
 * the command stays recorded and is applied later.
 */
export class OutcomeInbox {
  /** The subject prefix to name in commands. */
  readonly subject: string;
  private readonly waiters = new Map<string, (outcome: CommandOutcome) => void>();
  private sub: Subscription | null = null;

  constructor(private readonly nats: NatsClient) {
    this.subject = nats.subject(outcomeSubject(randomBytes(8).toString('hex')));
  }

  /** Starts listening for the command's outcome; call before publishing the command, so it cannot come first. */
  wait(commandId: string, timeoutMs: number): OutcomeWait {
    this.listen();
    let settle: (outcome: CommandOutcome | null) => void = () => undefined;
    const promise = new Promise<CommandOutcome | null>((resolve) => (settle = resolve));
    const timer = setTimeout(() => finish(null), timeoutMs);
    const finish = (outcome: CommandOutcome | null) => {
      clearTimeout(timer);
      if (this.waiters.get(commandId) === finish) this.waiters.delete(commandId);
      settle(outcome);
    };
    this.waiters.set(commandId, finish);
    return { promise, cancel: () => finish(null) };
  }

  close(): void {
    this.sub?.unsubscribe();
    this.sub = null;
  }

  private listen(): void {
    if (this.sub) return;
    const prefixLength = this.subject.length + 1;
    this.sub = this.nats.nc.subscribe(`${this.subject}.*`, {
      callback: (error, msg) => {
        if (error) return;
        const waiter = this.waiters.get(msg.subject.slice(prefixLength));
        if (!waiter) return; // gave up waiting already, or a duplicate
        try {
          waiter(msg.json<CommandOutcome>());
        } catch {
          // Unreadable: the waiter falls back to asking for the recorded outcome when its time runs out.
        }
      },
    });
  }
}

/**
 * Listens for one outcome on `<prefix>.outcome.<commandId>`, where owners publish the outcome of a command that
 * names no inbox (the replay tool's): start it before publishing the command.
 */
export function waitForOutcome(nats: NatsClient, commandId: string, timeoutMs: number): OutcomeWait {
  let settle: (outcome: CommandOutcome | null) => void = () => undefined;
  const promise = new Promise<CommandOutcome | null>((resolve) => (settle = resolve));
  const sub = nats.nc.subscribe(nats.subject(outcomeSubject(commandId)), {
    max: 1,
    callback: (error, msg) => {
      clearTimeout(timer);
      settle(error ? null : msg.json<CommandOutcome>());
    },
  });
  const timer = setTimeout(() => {
    sub.unsubscribe();
    settle(null);
  }, timeoutMs);
  return {
    promise,
    cancel: () => {
      clearTimeout(timer);
      sub.unsubscribe();
      settle(null);
    },
  };
}
