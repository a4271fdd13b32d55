import { randomUUID } from 'node:crypto';
import {
  DomainOwner,
  commandOutcomeSubject,
  domainOf,
  type CommandOutcome,
  type QueryEnvelope,
} from '@app/contracts';
import type { NatsClient } from '@app/messaging';

const OPERATOR = { userId: 'system', kind: 'system' } as const;

export class OwnerUnavailableError extends Error {}

/**
 * The outcome the command's owner recorded for it (its `processed_commands` row), asked over the bus the way
 * the gateway asks; `null` when the owner has not applied it. Throws OwnerUnavailableError when the owner does
 * not answer: whether the command was applied is then unknown, and nothing should be replayed blindly.
 */
export async function recordedOutcome(
  nats: NatsClient,
  subject: string,
  commandId: string,
  timeoutMs: number,
): Promise<CommandOutcome | null> {
  const domain = domainOf(subject);
  const envelope: QueryEnvelope = { actor: OPERATOR, correlationId: randomUUID(), payload: { commandId } };
  let reply: CommandOutcome<CommandOutcome | null>;
  try {
    const msg = await nats.nc.request(nats.subject(commandOutcomeSubject(domain)), JSON.stringify(envelope), {
      timeout: timeoutMs,
    });
    reply = msg.json<CommandOutcome<CommandOutcome | null>>();
  } catch (error) {
    throw new OwnerUnavailableError(
      `${DomainOwner[domain]} (owner of ${domain}.*, NATS prefix ${nats.prefix}) did not answer within ${timeoutMs} ms ` +
        `(${(error as Error).message}): start it, then run this again`,
    );
  }
  if (!reply.ok) throw new Error(`${DomainOwner[domain]} refused the outcome query: ${reply.error.message}`);
  return reply.value;
}

/** `CODE: message` of a failed outcome. */
export function describeFailure(outcome: CommandOutcome): string {
  return outcome.ok ? 'ok' : `${outcome.error.code}: ${outcome.error.message}`;
}
