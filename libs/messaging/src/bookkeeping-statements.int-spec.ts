import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { messagingDataSource } from '../../../test/support/messaging-data-source.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { BookkeepingStatements, type OutboxRow, type ProcessedRow } from './bookkeeping-statements.js';

/**
 * The processor's and the relay's own statements against real Postgres (queue-broker's schema): rows written in
 * the order given with their JSON intact, and outbox rows claimed in `seq` order, once, by one relay at a time.
 */

const SCHEMA = 'queue_broker';

let database: TestDatabase | undefined;
let dataSource: DataSource;
let statements: BookkeepingStatements;

beforeAll(async () => {
  database = await createTestDatabase('bookkeeping_statements');
  dataSource = await messagingDataSource(database, SCHEMA, 4, 'bookkeeping-statements-int-spec');
  statements = new BookkeepingStatements(dataSource);
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

/** JSON that an array literal or a text cast could mangle: quotes, backslashes, braces, commas, non-ASCII, null. */
const AWKWARD = {
  quote: 'say "hi", {ok}',
  backslash: 'C:\\path\\n\t',
  unicode: 'héllo ☃ 😀',
  nested: [1, [2, null], { a: '}' }],
  empty: '',
};

function rows(n: number): { outbox: OutboxRow[]; processed: ProcessedRow[] } {
  const correlationId = `corr-${randomUUID()}`;
  const outbox: OutboxRow[] = [];
  const processed: ProcessedRow[] = [];
  for (let i = 0; i < n; i++) {
    outbox.push({
      id: `evt-${randomUUID()}`,
      subject: 'job.evt.tested',
      payload: { i, ...AWKWARD },
      correlationId,
      occurredAt: '2026-01-02T03:04:05.678Z',
    });
    processed.push({
      commandId: randomUUID(),
      subject: 'job.cmd.test',
      outcome: { ok: true, value: i === 0 ? null : { i, ...AWKWARD } },
      issuedAt: '2026-01-02T03:04:05.678Z',
      correlationId,
      actorUserId: 'user-1',
    });
  }
  return { outbox, processed };
}

/** The processed rows, read back by processed_at, are those given, in the order given, outcomes intact. */
async function expectRecordedInOrder(processed: ProcessedRow[]): Promise<void> {
  const applied = await dataSource.query<{ command_id: string; outcome: unknown }[]>(
    `SELECT command_id, outcome FROM ${SCHEMA}.processed_commands WHERE command_id = ANY($1)
     ORDER BY processed_at`,
    [processed.map((r) => r.commandId)],
  );
  // processed_at is clock_timestamp() row by row: the rows sort in the order they were given.
  expect(applied.map((r) => r.command_id)).toEqual(processed.map((r) => r.commandId));
  expect(applied.map((r) => r.outcome)).toEqual(processed.map((r) => r.outcome));
}

describe('BookkeepingStatements', () => {
  it('records outbox and processed rows in the order given, JSON intact, in one statement', async () => {
    const { outbox, processed } = rows(5);
    await dataSource.transaction((manager) => statements.record(manager, outbox, processed));
    const events = await dataSource.query<{ id: string; payload: unknown; occurred_at: Date }[]>(
      `SELECT id, payload, occurred_at FROM ${SCHEMA}.outbox WHERE id = ANY($1) ORDER BY seq`,
      [outbox.map((r) => r.id)],
    );
    expect(events.map((e) => e.id)).toEqual(outbox.map((r) => r.id));
    expect(events.map((e) => e.payload)).toEqual(outbox.map((r) => r.payload));
    expect(events[0].occurred_at.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    await expectRecordedInOrder(processed);
    const found = await statements.find(dataSource.manager, [processed[2].commandId, 'never-applied']);
    expect([...found.entries()]).toEqual([[processed[2].commandId, processed[2].outcome]]);
  });

  it('keeps the order and the exact JSON text of a large batch, and of a large payload', async () => {
    const { outbox, processed } = rows(300);
    // One payload as large as a 250-pod cluster's created event, escapes and all.
    outbox[150].payload = { members: Array.from({ length: 250 }, (_, i) => ({ i, ...AWKWARD })) };
    await dataSource.transaction((manager) => statements.record(manager, outbox, processed));
    const events = await dataSource.query<{ id: string; text: string }[]>(
      `SELECT id, payload::text AS text FROM ${SCHEMA}.outbox WHERE id = ANY($1) ORDER BY seq`,
      [outbox.map((r) => r.id)],
    );
    expect(events.map((e) => e.id)).toEqual(outbox.map((r) => r.id));
    // json keeps the text as written: byte for byte what was serialised.
    expect(events.map((e) => e.text)).toEqual(outbox.map((r) => JSON.stringify(r.payload)));
    await expectRecordedInOrder(processed);
  });

  it('records processed rows without events, and refuses a command recorded before (nothing written)', async () => {
    const { processed } = rows(2);
    await dataSource.transaction((manager) => statements.record(manager, [], processed));
    const { outbox } = rows(1);
    await expect(
      dataSource.transaction((manager) => statements.record(manager, outbox, [processed[1]])),
    ).rejects.toMatchObject({ code: '23505' });
    const left = await dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE id = $1`,
      [outbox[0].id],
    );
    expect(left[0].n).toBe(0);
  });

  it('claims unpublished rows in seq order, once; a claim held by another relay is skipped, a rollback frees it', async () => {
    await dataSource.query(`UPDATE ${SCHEMA}.outbox SET published_at = now() WHERE published_at IS NULL`);
    const { outbox, processed } = rows(4);
    await dataSource.transaction((manager) => statements.record(manager, outbox, processed));
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const held = await statements.claim(runner.manager, 2);
      expect(held.map((r) => r.id)).toEqual(outbox.slice(0, 2).map((r) => r.id));
      expect(held[0].payload).toEqual(outbox[0].payload);
      // Another relay meanwhile: the rows held are skipped, the rest claimed.
      const other = await dataSource.transaction((manager) => statements.claim(manager, 10));
      expect(other.map((r) => r.id)).toEqual(outbox.slice(2).map((r) => r.id));
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
    // Rolled back (the publish failed, say): the first two are unpublished again, and claimed next.
    const again = await dataSource.transaction((manager) => statements.claim(manager, 10));
    expect(again.map((r) => r.id)).toEqual(outbox.slice(0, 2).map((r) => r.id));
    expect(await dataSource.transaction((manager) => statements.claim(manager, 10))).toEqual([]);
  });

  it("lets only its own transaction commit without a WAL flush; the connection's next ones wait for theirs", async () => {
    const setting = (manager: { query: DataSource['query'] }) =>
      manager.query<{ v: string }[]>(`SELECT current_setting('synchronous_commit') AS v`);
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ v: server }] = await setting(runner.manager);
      await runner.startTransaction();
      const { outbox, processed } = rows(1);
      await statements.record(runner.manager, outbox, processed);
      await statements.commitWithoutFlush(runner.manager);
      expect((await setting(runner.manager))[0].v).toBe('off');
      await runner.commitTransaction();
      // Committed all the same, and the same connection is back to the server's setting.
      expect((await setting(runner.manager))[0].v).toBe(server);
      const written = await runner.manager.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE id = $1`,
        [outbox[0].id],
      );
      expect(written[0].n).toBe(1);
    } finally {
      await runner.release();
    }
  });
});
