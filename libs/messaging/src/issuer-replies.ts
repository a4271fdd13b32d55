import type { JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import {
  ErrorCode,
  HINTED_EVENTS,
  Headers,
  hintSubject,
  outcomeSubject,
  type AppName,
  type CommandOutcome,
} from '@app/contracts';
import type { EventEnvelope } from './handler-context.js';
import type { EmittedEvent, MessageIdentity } from './applied-message.js';
import type { NatsClient } from './nats-client.js';

/**
 * What an owner sends on core NATS about the messages it applies (never recorded; every one of them has a durable
 * fallback): an event's hint right after the commit, a command's outcome to its issuer's inbox, and the notice that
 * a command waits for the database.
 */
export class IssuerReplies {
  /** Outcome inboxes of this deployment: an OutcomeTo header outside them is ignored. */
  private readonly outcomeInboxes: string;

  constructor(
    private readonly nats: NatsClient,
    private readonly app: AppName,
  ) {
    this.outcomeInboxes = nats.subject(outcomeSubject(''));
  }

  /** The event's hint, if it is one of the HINTED_EVENTS (no one listens for the others). */
  hint(event: EmittedEvent): void {
    if (!HINTED_EVENTS.has(event.subject)) return;
    const envelope: EventEnvelope = {
      eventId: event.id,
      subject: event.subject,
      occurredAt: event.occurredAt,
      correlationId: event.correlationId,
      payload: event.payload,
    };
    try {
      this.nats.nc.publish(this.nats.subject(hintSubject(event.subject)), JSON.stringify(envelope));
    } catch {
      // A hint is only a shortcut: the relayed event wakes the same waiters a moment later.
    }
  }

  /** To the issuer's inbox when the command names one (Headers.OutcomeTo), else to `outcome.<commandId>`. */
  outcome(msg: JsMsg, commandId: string, outcome: CommandOutcome): void {
    const inbox = this.inboxOf(msg);
    const subject = inbox ? `${inbox}.${commandId}` : this.nats.subject(outcomeSubject(commandId));
    try {
      this.nats.nc.publish(subject, JSON.stringify(outcome));
    } catch {
      // The caller falls back to asking for the recorded outcome.
    }
  }

  /**
   * Tells a waiting issuer (its inbox; never the replay tool, which names none) that its command is recorded but
   * cannot be applied while this owner's database is down, so it can answer 503 now instead of after its whole
   * timeout. The command itself stays held and is applied when the database is back; its real outcome is
   * recorded then, for whoever asks.
   */
  deferred(msg: JsMsg, identity: MessageIdentity): void {
    const inbox = this.inboxOf(msg);
    if (!inbox) return;
    const notice: CommandOutcome = {
      ok: false,
      error: {
        code: ErrorCode.OwnerUnavailable,
        message:
          `${this.app} cannot reach its database: command ${identity.id} (${identity.subject}) ` +
          'is recorded and will be applied when the database is back',
      },
    };
    const h = natsHeaders();
    h.set(Headers.OutcomeDeferred, 'database');
    try {
      this.nats.nc.publish(`${inbox}.${identity.id}`, JSON.stringify(notice), { headers: h });
    } catch {
      // The issuer waits out its timeout instead.
    }
  }

  private inboxOf(msg: JsMsg): string | null {
    const inbox = msg.headers?.get(Headers.OutcomeTo);
    return inbox && inbox.startsWith(this.outcomeInboxes) ? inbox : null;
  }
}
