import pg from 'pg';
import { Streams } from '@app/contracts';
import type { NatsClient } from '@app/messaging';
import { REBUILT_SCHEMAS } from './rebuild-scope.js';

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Waits until the rebuilt deployment is quiet: no outbox row unpublished and every durable consumer of its
 * commands and events streams caught up, twice in a row (an event handled may have emitted another).
 */
export function settler(
  nats: NatsClient,
  databaseUrl: string,
): { settle: () => Promise<void>; close: () => Promise<void> } {
  const client = new pg.Client({ connectionString: databaseUrl });
  const connected = client.connect();
  const pendingOutbox = REBUILT_SCHEMAS.map(
    (s) => `(SELECT count(*) FROM ${ident(s)}.outbox WHERE published_at IS NULL)`,
  ).join(' + ');
  const quiet = async (): Promise<boolean> => {
    await connected;
    const { rows } = await client.query<{ n: string }>(`SELECT ${pendingOutbox} AS n`);
    if (Number(rows[0].n) > 0) return false;
    for (const stream of [Streams.Commands, Streams.Events]) {
      for await (const consumer of nats.jsm.consumers.list(nats.streamName(stream))) {
        if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return false;
      }
    }
    return true;
  };
  const settle = async (): Promise<void> => {
    const deadline = Date.now() + 60_000;
    let quietReads = 0;
    while (quietReads < 2) {
      if (Date.now() > deadline) throw new Error('the rebuilt deployment did not settle within 60 s');
      if (await quiet()) quietReads++;
      else {
        quietReads = 0;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  return { settle, close: () => connected.then(() => client.end()) };
}
