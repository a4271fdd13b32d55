import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { busMetrics } from '@app/observability';
import { deleteStreams } from '../../../test/support/system.js';
import { messagingDataSource } from '../../../test/support/messaging-data-source.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { testEnv } from '../../../test/support/test-env.js';
import { BookkeepingStatements } from './bookkeeping-statements.js';
import { NatsClient } from './nats-client.js';
import { HINTED_RELAY_DELAY_MS, OutboxRelay } from './outbox-relay.service.js';
import { ensureStreams } from './stream-topology.js';

/**
 * The outbox relay's sweep against a real Postgres and NATS: a row nobody kicked the relay for (what a crash
 * between commit and kick leaves) reaches the events stream within the sweep's second, and an outbox with nothing
 * unpublished costs the sweep one count, no relaying transaction. Woken by commits, it relays an event nobody was
 * hinted at once, and hinted ones of several commits together.
 */

const SCHEMA = 'queue_broker';
const SUBJECT = 'job.evt.swept';

let database: TestDatabase | undefined;
let dataSource: DataSource;
let client: NatsClient;
let relay: OutboxRelay;
const prefix = `relay${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  database = await createTestDatabase('outbox_relay', { apps: ['queue-broker'] });
  dataSource = await messagingDataSource(database, SCHEMA, 3, 'outbox-relay-int-spec');
  client = await NatsClient.connect(testEnv().natsUrl, prefix, 'outbox-relay-int-spec');
  await ensureStreams(client);
  relay = new OutboxRelay(dataSource, client);
  relay.onApplicationBootstrap();
});

afterEach(() => {
  jest.restoreAllMocks();
});

afterAll(async () => {
  await relay?.onApplicationShutdown();
  if (dataSource?.isInitialized) await dataSource.destroy();
  await client?.drain();
  await deleteStreams(prefix);
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function insertRow(id: string, subject: string): Promise<void> {
  await dataSource.query(
    `INSERT INTO ${SCHEMA}.outbox (id, subject, payload, correlation_id, occurred_at) VALUES ($1, $2, $3, $4, now())`,
    [id, subject, JSON.stringify({ id }), `corr-${id}`],
  );
}

/** Waits (up to 5 s) until every row of `ids` is marked published; whether they all were. */
async function published(ids: string[]): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const [{ n }] = await dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE id = ANY($1) AND published_at IS NOT NULL`,
      [ids],
    );
    if (n === ids.length) return true;
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
}

async function pendingGauge(): Promise<number> {
  return (await busMetrics.outboxPending.get()).values[0]?.value ?? Number.NaN;
}

describe('OutboxRelay sweep', () => {
  it('relays a row it was never kicked for within its second, and counts it in bus_outbox_pending', async () => {
    const id = randomUUID();
    await dataSource.query(
      `INSERT INTO ${SCHEMA}.outbox (id, subject, payload, correlation_id, occurred_at) VALUES ($1, $2, $3, $4, now())`,
      [id, SUBJECT, JSON.stringify({ n: 1 }), `corr-${id}`],
    );
    const deadline = Date.now() + 5_000;
    let published: Date | null = null;
    while (!published && Date.now() < deadline) {
      await sleep(100);
      const [row] = await dataSource.query<{ published_at: Date | null }[]>(
        `SELECT published_at FROM ${SCHEMA}.outbox WHERE id = $1`,
        [id],
      );
      published = row.published_at;
    }
    expect(published).not.toBeNull();
    const stored = await client.jsm.streams.getMessage(`${prefix}_EVENTS`, {
      last_by_subj: client.subject(SUBJECT),
    });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(id);
    expect(JSON.parse(stored!.string())).toMatchObject({ eventId: id, subject: SUBJECT, payload: { n: 1 } });
    // The next sweep counts what is left: nothing.
    await sleep(1_200);
    expect(await pendingGauge()).toBe(0);
  });

  it('opens no relaying transaction while nothing waits', async () => {
    const claims = jest.spyOn(BookkeepingStatements.prototype, 'claim');
    const counts = jest.spyOn(BookkeepingStatements.prototype, 'pending');
    await sleep(2_300);
    expect(counts.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(claims).not.toHaveBeenCalled();
  });
});

describe('OutboxRelay woken by commits', () => {
  // The sweep stopped, so that only the wakes below relay.
  beforeAll(() => relay.onApplicationShutdown());
  afterAll(() => relay.onApplicationBootstrap());

  const flushes = () => jest.spyOn(relay as unknown as { flush(): Promise<void> }, 'flush');

  it('relays the events of several commits that were all hinted in one transaction, within its delay', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await insertRow(id, 'job.evt.changed');
    const flush = flushes();
    const woken = Date.now();
    for (let n = 0; n < ids.length; n += 1) relay.written([{ subject: 'job.evt.changed' }]);
    expect(flush).not.toHaveBeenCalled();
    expect(await published(ids)).toBe(true);
    expect(Date.now() - woken).toBeGreaterThanOrEqual(HINTED_RELAY_DELAY_MS - 1);
    expect(flush).toHaveBeenCalledTimes(1);
  });

  it('relays at once when any event of the commit was not hinted, taking what waited along', async () => {
    const waiting = randomUUID();
    const unhinted = randomUUID();
    await insertRow(waiting, 'job.evt.queued');
    await insertRow(unhinted, SUBJECT);
    const flush = flushes();
    relay.written([{ subject: 'job.evt.queued' }]);
    expect(flush).not.toHaveBeenCalled();
    relay.written([{ subject: 'job.evt.queued' }, { subject: SUBJECT }]);
    expect(flush).toHaveBeenCalledTimes(1);
    expect(await published([waiting, unhinted])).toBe(true);
    // The wait for company was given up for the relay that ran: nothing more runs after it.
    await sleep(HINTED_RELAY_DELAY_MS * 3);
    expect(flush).toHaveBeenCalledTimes(1);
  });

  it('relays what waits for company when the app stops', async () => {
    const id = randomUUID();
    await insertRow(id, 'job.evt.changed');
    relay.written([{ subject: 'job.evt.changed' }]);
    await relay.onApplicationShutdown();
    const [row] = await dataSource.query<{ published_at: Date | null }[]>(
      `SELECT published_at FROM ${SCHEMA}.outbox WHERE id = $1`,
      [id],
    );
    expect(row.published_at).not.toBeNull();
  });
});

describe('OutboxRelay gauges: the relay lag and whether Postgres answers', () => {
  // The sweep stopped: each test runs one sweep itself, so nothing relays the row between the count and the check.
  beforeAll(() => relay.onApplicationShutdown());
  afterAll(() => relay.onApplicationBootstrap());

  const sweep = (r: OutboxRelay) => (r as unknown as { sweep(): Promise<void> }).sweep();
  const gauge = async (metric: { get(): Promise<{ values: { value: number }[] }> }) =>
    (await metric.get()).values[0]?.value ?? Number.NaN;

  it('sets bus_outbox_oldest_pending_seconds to the age of the oldest unrelayed row, and database_up to 1', async () => {
    const id = randomUUID();
    await dataSource.query(
      `INSERT INTO ${SCHEMA}.outbox (id, subject, payload, correlation_id, occurred_at) ` +
        `VALUES ($1, $2, $3, $4, now() - interval '90 seconds')`,
      [id, SUBJECT, JSON.stringify({ id }), `corr-${id}`],
    );
    busMetrics.databaseUp.set(0);
    await sweep(relay);
    expect(await gauge(busMetrics.outboxOldestPendingSeconds)).toBeGreaterThanOrEqual(90);
    expect(await gauge(busMetrics.outboxOldestPendingSeconds)).toBeLessThan(120);
    expect(await gauge(busMetrics.databaseUp)).toBe(1);
    // The sweep kicked the relay: once the row is out, the next count finds no lag.
    expect(await published([id])).toBe(true);
    await sweep(relay);
    expect(await gauge(busMetrics.outboxOldestPendingSeconds)).toBe(0);
  });

  it('sets database_up to 0 when the count cannot reach Postgres', async () => {
    // A relay whose pool is closed: every statement fails as it does when the server is gone.
    const closed = await messagingDataSource(database!, SCHEMA, 1, 'outbox-relay-int-spec-closed');
    await closed.destroy();
    await sweep(new OutboxRelay(closed, client));
    expect(await gauge(busMetrics.databaseUp)).toBe(0);
  });
});
