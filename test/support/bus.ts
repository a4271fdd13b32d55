import { randomUUID } from 'node:crypto';
import { jetstream, type JetStreamClient, type PubAck } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import {
  COMMAND_FORMAT,
  Headers,
  type Actor,
  type CommandEnvelope,
  type CommandOutcome,
  type QueryEnvelope,
} from '@app/contracts';
import { testEnv } from './test-env.js';

/**
 * A tiny client over raw NATS for tests that talk to the apps directly, bypassing the gateway: it speaks the wire
 * format the apps expect (the envelope, `Nats-Msg-Id` = command id, `<prefix>.outcome.<commandId>`) without any of
 * the library code under test. One connection per test file, opened on first use; call `closeBus()` in
 * `afterAll`.
 */

interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
}

let bus: Promise<Bus> | undefined;

function connection(): Promise<Bus> {
  bus ??= connect({ servers: testEnv().natsUrl.split(','), name: 'jest-test-bus', timeout: 5000 }).then(
    (nc) => ({
      nc,
      js: jetstream(nc, { timeout: 5000 }),
    }),
  );
  return bus;
}

/** Closes the connection (if one was opened); the next call opens a new one. */
export async function closeBus(): Promise<void> {
  const current = bus;
  bus = undefined;
  if (current) await (await current).nc.close();
}

export const TEST_ACTOR: Actor = { userId: 'test-user', kind: 'user' };

/** A command envelope with a fresh command id and correlation id, issued now; `overrides` win. */
export function commandEnvelope<P>(
  subject: string,
  payload: P,
  overrides: Partial<Omit<CommandEnvelope<P>, 'subject' | 'payload'>> = {},
): CommandEnvelope<P> {
  return {
    commandId: randomUUID(),
    issuedAt: new Date().toISOString(),
    actor: TEST_ACTOR,
    correlationId: `test-${randomUUID()}`,
    subject,
    payload,
    format: COMMAND_FORMAT,
    ...overrides,
  };
}

/**
 * Records a command in the commands stream as the CommandBus does; resolves with JetStream's ack. `msgId`
 * overrides the `Nats-Msg-Id` (the command id by default), to deliver the same command again past JetStream's
 * de-duplication, as a replay or a publish after the duplicate window does.
 */
export async function publishCommand(
  prefix: string,
  envelope: CommandEnvelope,
  msgId?: string,
): Promise<PubAck> {
  const { js } = await connection();
  const h = natsHeaders();
  h.set(Headers.CorrelationId, envelope.correlationId);
  h.set(Headers.CommandId, envelope.commandId);
  return js.publish(`${prefix}.${envelope.subject}`, JSON.stringify(envelope), {
    msgID: msgId ?? envelope.commandId,
    headers: h,
  });
}

/**
 * The outcome the owner publishes on `<prefix>.outcome.<commandId>` once it has applied the command. Outcomes
 * are not recorded on the bus: subscribe before the command can be handled, i.e. call this before
 * `publishCommand` (without awaiting it in between), or use `sendCommand`.
 */
export async function waitOutcome(
  prefix: string,
  commandId: string,
  timeoutMs = 10_000,
): Promise<CommandOutcome> {
  const { nc } = await connection();
  return subscribeOutcome(nc, prefix, commandId, timeoutMs);
}

/** Subscribes to the command's outcome, then records the command; resolves with the outcome. */
export async function sendCommand(
  prefix: string,
  envelope: CommandEnvelope,
  timeoutMs = 10_000,
): Promise<CommandOutcome> {
  const { nc } = await connection();
  const outcome = subscribeOutcome(nc, prefix, envelope.commandId, timeoutMs);
  try {
    await publishCommand(prefix, envelope);
  } catch (error) {
    outcome.catch(() => undefined);
    throw error;
  }
  return outcome;
}

/** Subscribes at once (the SUB goes out before anything published later on this connection). */
function subscribeOutcome(
  nc: NatsConnection,
  prefix: string,
  commandId: string,
  timeoutMs: number,
): Promise<CommandOutcome> {
  const subject = `${prefix}.outcome.${commandId}`;
  return new Promise((resolve, reject) => {
    nc.subscribe(subject, {
      max: 1,
      timeout: timeoutMs,
      callback: (error, msg) => {
        if (error) {
          reject(new Error(`no outcome on ${subject} within ${timeoutMs} ms (${error.message})`));
          return;
        }
        try {
          resolve(msg.json<CommandOutcome>());
        } catch (parseError) {
          reject(new Error(`the outcome on ${subject} is not JSON: ${(parseError as Error).message}`));
        }
      },
    });
  });
}

/**
 * Core NATS request-reply on `<prefix>.<subject>` with a query envelope, as the QueryBus sends it. Resolves with
 * the parsed reply (for queries, a `CommandOutcome`: `{ ok, value | error }`).
 */
export async function request<T = CommandOutcome>(
  prefix: string,
  subject: string,
  payload: unknown,
  actor: Actor = TEST_ACTOR,
  timeoutMs = 5_000,
): Promise<T> {
  const { nc } = await connection();
  const envelope: QueryEnvelope = { actor, correlationId: `test-${randomUUID()}`, payload };
  const h = natsHeaders();
  h.set(Headers.CorrelationId, envelope.correlationId);
  const reply = await nc.request(`${prefix}.${subject}`, JSON.stringify(envelope), {
    timeout: timeoutMs,
    headers: h,
  });
  return reply.json<T>();
}
