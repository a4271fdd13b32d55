import { headers as natsHeaders } from '@nats-io/transport-node';
import type { JsMsg } from '@nats-io/jetstream';
import { Headers } from '@app/contracts';
import type { NatsClient } from './nats-client.js';

/** Copies a message that cannot be handled to the dead-letter stream, with the reason, before it is terminated. */
export async function deadLetter(client: NatsClient, msg: JsMsg, reason: string): Promise<void> {
  const h = natsHeaders();
  h.set('x-dlq-reason', reason.slice(0, 1000));
  h.set('x-dlq-original-subject', msg.subject);
  h.set('x-dlq-stream-seq', String(msg.seq));
  const correlationId = msg.headers?.get(Headers.CorrelationId);
  if (correlationId) h.set(Headers.CorrelationId, correlationId);
  await client.js.publish(`${client.prefix}_dlq.${client.unprefix(msg.subject)}`, msg.data, {
    headers: h,
    msgID: `dlq-${msg.info.stream}-${msg.seq}`,
  });
}
