import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { CommandOutcome } from '@app/contracts';
import { OutboxMessageEntity, ProcessedCommandEntity, preparedQuery, writeBehind } from '@app/database';

/** A processed-commands row as the processor writes it (`processed_at` is the statement's clock_timestamp()). */
export interface ProcessedRow {
  commandId: string;
  subject: string;
  outcome: CommandOutcome;
  issuedAt: string;
  correlationId: string;
  actorUserId: string;
}

/** An outbox row as the processor writes it (`seq` from its sequence, `published_at` null). */
export interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  correlationId: string;
  occurredAt: string;
}

/** An outbox row as Postgres returns it (snake_case columns). */
export interface OutboxTableRow {
  id: string;
  seq: string;
  subject: string;
  payload: unknown;
  correlation_id: string;
  occurred_at: Date;
}

/** An outbox row claimed by the relay. */
export interface ClaimedOutboxRow {
  id: string;
  seq: string;
  subject: string;
  payload: unknown;
  correlationId: string;
  occurredAt: Date;
}

/**
 * The statements every applied message pays for besides its own effect — look up what was applied, write the
 * processed rows and outbox rows of a batch, claim rows to relay — as single prepared statements on `pg`, built
 * once from the entities' table names. They were TypeORM calls: a query built and its result mapped per call, and
 * two inserts where one statement does (issue 13: most of a command's cost was such overhead and round trips).
 */
export class BookkeepingStatements {
  private readonly findText: string;
  private readonly recordText: string;
  private readonly claimText: string;
  private readonly pendingText: string;
  private readonly names: { find: string; record: string; claim: string; pending: string };

  constructor(dataSource: DataSource) {
    const processed = dataSource.getMetadata(ProcessedCommandEntity);
    const outbox = dataSource.getMetadata(OutboxMessageEntity);
    const table = (m: typeof processed) => (m.schema ? `"${m.schema}"."${m.tableName}"` : `"${m.tableName}"`);
    const processedTable = table(processed);
    const outboxTable = table(outbox);
    this.findText = `SELECT command_id, outcome FROM ${processedTable} WHERE command_id = ANY($1::text[])`;
    // Rows in the order given: the outbox's `seq` follows it (the relay publishes by seq) and so does each processed
    // row's clock_timestamp() (a rebuild follows processed_at, docs/adr/0011-replay-and-rebuild.md). The outbox
    // insert is a data-modifying CTE: it runs to completion whether or not the main statement reads it.
    // The payloads and outcomes travel as one JSON array each, split by Postgres, rather than as `json[]` arrays:
    // node-pg writes an array literal by escaping every quote and backslash of every element, which for a large
    // event (a 250-pod cluster's) cost more than the insert (docs/adr/0013, "Bookkeeping statements").
    this.recordText =
      `WITH events AS (INSERT INTO ${outboxTable} (id, subject, payload, correlation_id, occurred_at) ` +
      `SELECT e.id, e.subject, p.value, e.correlation_id, e.occurred_at FROM unnest($1::text[], $2::text[], ` +
      `$4::text[], $5::timestamptz[]) WITH ORDINALITY AS e(id, subject, correlation_id, occurred_at, n) ` +
      `JOIN json_array_elements($3::json) WITH ORDINALITY AS p(value, n) USING (n) ORDER BY n) ` +
      `INSERT INTO ${processedTable} (command_id, subject, outcome, issued_at, processed_at, correlation_id, ` +
      `actor_user_id) SELECT p.command_id, p.subject, o.value::jsonb, p.issued_at, clock_timestamp(), ` +
      `p.correlation_id, p.actor_user_id FROM unnest($6::text[], $7::text[], $9::timestamptz[], $10::text[], ` +
      `$11::text[]) WITH ORDINALITY AS p(command_id, subject, issued_at, correlation_id, actor_user_id, n) ` +
      `JOIN json_array_elements($8::json) WITH ORDINALITY AS o(value, n) USING (n) ORDER BY n`;
    // Claimed and marked in one statement, in the relay's transaction: rolled back (unmarked) if publishing fails.
    this.claimText =
      `UPDATE ${outboxTable} SET published_at = now() WHERE id IN (SELECT id FROM ${outboxTable} ` +
      `WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED) ` +
      `RETURNING id, seq, subject, payload, correlation_id, occurred_at`;
    // Read through the partial index of unpublished rows (outbox_unpublished_idx): the relay's sweep, every second.
    // The oldest row's age is the relay's lag (bus_outbox_oldest_pending_seconds), read from the same rows.
    this.pendingText =
      `SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(occurred_at)), 0)::float8 AS age ` +
      `FROM ${outboxTable} WHERE published_at IS NULL`;
    // One text per statement name for the life of the process (prepared per connection), and Postgres cuts names
    // at 63 bytes: named by a digest of the text, which holds the tables.
    this.names = {
      find: statementName('processed.find', this.findText),
      record: statementName('processed.record', this.recordText),
      claim: statementName('outbox.claim', this.claimText),
      pending: statementName('outbox.pending', this.pendingText),
    };
  }

  /** The recorded outcomes of those of `ids` that were applied, in one statement. */
  async find(manager: EntityManager, ids: string[]): Promise<Map<string, CommandOutcome>> {
    const rows = await preparedQuery<{ command_id: string; outcome: CommandOutcome }>(
      manager,
      this.names.find,
      this.findText,
      [ids],
    );
    return new Map(rows.map((row) => [row.command_id, row.outcome]));
  }

  /**
   * Writes a batch's outbox rows and processed rows, each in the order given, in one statement; sent behind the
   * batch's effects and in front of its COMMIT without a round trip of its own (writeBehind).
   */
  async record(manager: EntityManager, outbox: OutboxRow[], processed: ProcessedRow[]): Promise<void> {
    await writeBehind(manager, this.names.record, this.recordText, [
      outbox.map((r) => r.id),
      outbox.map((r) => r.subject),
      jsonArray(outbox.map((r) => r.payload)),
      outbox.map((r) => r.correlationId),
      outbox.map((r) => r.occurredAt),
      processed.map((r) => r.commandId),
      processed.map((r) => r.subject),
      jsonArray(processed.map((r) => r.outcome)),
      processed.map((r) => r.issuedAt),
      processed.map((r) => r.correlationId),
      processed.map((r) => r.actorUserId),
    ]);
  }

  /**
   * Lets the transaction of `manager` commit without waiting for its WAL to reach disk (`synchronous_commit` for
   * this transaction only): for writes that may be lost in a crash because they are redone, never for a command's.
   */
  async commitWithoutFlush(manager: EntityManager): Promise<void> {
    await writeBehind(manager, undefined, 'SET LOCAL synchronous_commit TO off');
  }

  /**
   * How many outbox rows are not published yet (those a replica is relaying right now included), and how long ago
   * the oldest of them occurred (0 when there is none).
   */
  async pending(manager: EntityManager): Promise<{ count: number; oldestAgeSeconds: number }> {
    const rows = await preparedQuery<{ n: number; age: number }>(
      manager,
      this.names.pending,
      this.pendingText,
      [],
    );
    return { count: rows[0].n, oldestAgeSeconds: Math.max(0, rows[0].age) };
  }

  /** Claims (marks published) up to `limit` unpublished outbox rows nobody else holds, in `seq` order. */
  async claim(manager: EntityManager, limit: number): Promise<ClaimedOutboxRow[]> {
    const rows = await preparedQuery<OutboxTableRow>(manager, this.names.claim, this.claimText, [limit]);
    // RETURNING has no order of its own.
    return rows
      .map((r) => ({
        id: r.id,
        seq: r.seq,
        subject: r.subject,
        payload: r.payload,
        correlationId: r.correlation_id,
        occurredAt: r.occurred_at,
      }))
      .sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
  }
}

/** One JSON array of the values, written element by element (an absent value as null, as a column takes it). */
function jsonArray(values: unknown[]): string {
  return `[${values.map((value) => JSON.stringify(value ?? null)).join(',')}]`;
}

/** A prepared statement's name: what it is, and a digest of its text (short of Postgres's 63-byte limit). */
function statementName(what: string, text: string): string {
  return `${what}:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}
