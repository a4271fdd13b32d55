/**
 * Who issued a command. `userId` is the ACCOUNT the command acts for, which owns what it creates and whose resources
 * it may touch: the user's own account (their user id), or a team's (`team_…`) when the key is a team's. Owner apps
 * check ownership against it alone; `memberId` says which member acted for the team (docs/adr/0034-teams.md).
 */
export interface Actor {
  userId: string;
  /** The user who acted for the team `userId` names; absent when a user acts for their own account. */
  memberId?: string;
  /** The API key that authenticated the request, when there was one. */
  keyId?: string;
  /** `user` for requests at the edge, `system` for commands an app issues on its own (autoscaler, timers). */
  kind: 'user' | 'system';
  /** Why a system actor issued the command (an autoscaler's scale-up, a spend limit), for the audit trail. */
  reason?: string;
}

/** The person behind an actor: the member acting for a team, or the user acting for themselves. */
export function personOf(actor: Actor): string {
  return actor.memberId ?? actor.userId;
}

/**
 * The format of the commands this build records (`CommandEnvelope.format`). Raised when the meaning of a recorded
 * command changes, so that a replay of a history recorded before can tell and refuse it rather than rebuild
 * something else. 2: a batched submit or result is always announced in one event (`job.evt.queued-many`,
 * `job.evt.changed-many`); before it (1, an envelope without `format`) that was a per-command option. A build
 * applies each older format it still replays (OLDEST_REPLAYABLE_COMMAND_FORMAT) with that format's meaning.
 */
export const COMMAND_FORMAT = 3;
/**
 * 3: a cluster member's own terminate is refused on every surface (`pod.cmd.terminate` from /v1 terminated it
 * before; /v2 already refused it). pod-lifecycle applies a format-2 command with its recorded meaning.
 */
export const MEMBER_TERMINATE_REFUSED_FROM_FORMAT = 3;
/** The oldest command format this build can replay (tools/replay refuses a history with an older command). */
export const OLDEST_REPLAYABLE_COMMAND_FORMAT = 2;

/** A recorded envelope's command format: 1 for one recorded before the envelope carried it. */
export function commandFormatOf(envelope: Pick<CommandEnvelope, 'format'>): number {
  return typeof envelope.format === 'number' ? envelope.format : 1;
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
  /** The command format it was recorded in (COMMAND_FORMAT); absent on commands recorded before it existed. */
  format?: number;
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
  /**
   * On the reply to a page of a list (`pod.qry.list-v2`): the cursor of the next page (its `afterId`), absent on the
   * last one; for a caller that passes the page's JSON through without parsing it (ADR 46).
   */
  PageNext: 'x-page-next',
} as const;
