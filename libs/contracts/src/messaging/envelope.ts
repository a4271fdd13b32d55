/** Who issued a command: the authenticated user (and key) at the edge, or a system actor. */
export interface Actor {
  userId: string;
  /** The API key that authenticated the request, when there was one. */
  keyId?: string;
  /** `user` for requests at the edge, `system` for commands an app issues on its own (autoscaler, timers). */
  kind: 'user' | 'system';
}

/**
 * Every state-changing command that crosses the bus travels in this envelope. Resource ids and timestamps are
 * derived from `commandId` and `issuedAt`, never from the handler's clock, so a replay rebuilds the same rows.
 */
export interface CommandEnvelope<P = unknown> {
  commandId: string;
  /** ISO-8601 time the command was issued. */
  issuedAt: string;
  actor: Actor;
  correlationId: string;
  /** The unprefixed subject, e.g. `registry-auth.cmd.create`. */
  subject: string;
  payload: P;
}

/** The recorded answer to a command: the same for the first delivery and for every redelivery or replay. */
export type CommandOutcome<R = unknown> =
  { ok: true; value: R } | { ok: false; error: import('../errors/domain-error.js').ErrorPayload };

/** Header names used on every NATS message. */
export const Headers = {
  CorrelationId: 'x-correlation-id',
  CommandId: 'x-command-id',
  /** `Nats-Msg-Id`: JetStream de-duplicates on it. */
  MsgId: 'Nats-Msg-Id',
  /**
   * The issuing process's outcome inbox (`<prefix>.outcome.<process>`): the owner publishes the outcome to
   * `<inbox>.<commandId>`, so each process needs one subscription for all its commands.
   */
  OutcomeTo: 'x-outcome-to',
  /**
   * On a message to an outcome inbox: not the outcome, but notice that the command is recorded and cannot be
   * applied yet (`database`: the owner's database is unreachable); the body says so as an OWNER_UNAVAILABLE error.
   */
  OutcomeDeferred: 'x-outcome-deferred',
} as const;
