// Issuing recorded commands from the bench as an app's CommandBus does (libs/messaging/src/command-bus.ts): the
// envelope published to the commands stream with Nats-Msg-Id = command id and the issuer's outcome inbox, the
// owner's outcome read from that inbox. So a measure drives an owner exactly as its issuers do (pod-lifecycle's
// `placement.cmd.reserve`, for one), without the HTTP edge in front.
import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';

/** COMMAND_FORMAT (libs/contracts/src/messaging/envelope.ts). */
const COMMAND_FORMAT = 3;

/**
 * An issuer on `nc` under the NATS prefix `prefix`: `issue(subject, payload, actor)` records the command and resolves
 * with `{ ok, value | error, ms }` (ms: from the publish to the outcome); `close()` drops the inbox.
 */
export function commandIssuer(nc, prefix, { timeoutMs = 60_000 } = {}) {
  const js = jetstream(nc);
  const inbox = `${prefix}.outcome.bench-${randomUUID().slice(0, 8)}`;
  const waiting = new Map();
  const sub = nc.subscribe(`${inbox}.*`, {
    callback: (error, msg) => {
      if (error) return;
      const id = msg.subject.slice(inbox.length + 1);
      waiting.get(id)?.(msg.json());
      waiting.delete(id);
    },
  });
  async function issue(subject, payload, actor) {
    const commandId = randomUUID();
    const envelope = {
      commandId,
      issuedAt: new Date().toISOString(),
      actor,
      correlationId: commandId,
      subject,
      payload,
      format: COMMAND_FORMAT,
    };
    let timer;
    const outcome = new Promise((resolve, reject) => {
      waiting.set(commandId, resolve);
      timer = setTimeout(() => reject(new Error(`${subject}: no outcome in ${timeoutMs} ms`)), timeoutMs);
    });
    const h = headers();
    h.set('x-correlation-id', commandId);
    h.set('x-command-id', commandId);
    h.set('x-outcome-to', inbox);
    const started = performance.now();
    await js.publish(`${prefix}.${subject}`, JSON.stringify(envelope), { msgID: commandId, headers: h });
    try {
      const result = await outcome;
      return { ...result, ms: performance.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }
  return { issue, close: () => sub.unsubscribe() };
}

/** Runs `work(i)` for i in 0…count-1 with at most `concurrency` at once; resolves when all are done. */
export async function pooled(count, concurrency, work) {
  let next = 0;
  const lane = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
