import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { BaseConfig } from '@app/config';
import { DomainError, ErrorCode, deriveId } from '@app/contracts';
import { messagingDataSource } from '../../../test/support/messaging-data-source.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { FaultInjector } from './fault-injector.js';
import type { Emit, MessageIdentity } from './applied-message.js';
import { MessageProcessor } from './message-processor.js';

/**
 * MessageProcessor against real Postgres (queue-broker's schema, migrated by the app's own migrate.mjs): applied
 * once per message id, DomainErrors recorded as answers with the effect rolled back, other errors leaving no trace,
 * and concurrent deliveries of one message committing once.
 */

const SCHEMA = 'queue_broker';
const SUBJECT = 'job.cmd.test';
const EVENT = 'job.evt.tested';

let database: TestDatabase | undefined;
let dataSource: DataSource;
let processor: MessageProcessor;

beforeAll(async () => {
  database = await createTestDatabase('message_processor');
  dataSource = await messagingDataSource(database, SCHEMA, 5, 'message-processor-int-spec');
  // Stands for an app's domain table: what an effect writes besides its events.
  await dataSource.query(
    `CREATE TABLE ${SCHEMA}.test_effects (id bigserial PRIMARY KEY, command_id text NOT NULL, note text NOT NULL)`,
  );
  processor = new MessageProcessor(dataSource, new FaultInjector(new BaseConfig()));
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

function message(): MessageIdentity {
  return {
    id: randomUUID(),
    subject: SUBJECT,
    issuedAt: '2026-01-02T03:04:05.678Z',
    correlationId: `corr-${randomUUID()}`,
    actorUserId: 'user-1',
  };
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  occurred_at: Date;
  published_at: Date | null;
}

async function countRows(table: string, column: string, value: string): Promise<number> {
  const rows = await dataSource.query<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM ${SCHEMA}.${table} WHERE ${column} = $1`,
    [value],
  );
  return rows[0].n;
}

/** What one message left in the database: effect rows, outbox rows and processed-command rows. */
async function footprint(
  msg: MessageIdentity,
): Promise<{ effects: number; outbox: number; processed: number }> {
  return {
    effects: await countRows('test_effects', 'command_id', msg.id),
    outbox: await countRows('outbox', 'correlation_id', msg.correlationId),
    processed: await countRows('processed_commands', 'command_id', msg.id),
  };
}

async function writeEffect(manager: EntityManager, msg: MessageIdentity, note: string): Promise<void> {
  await manager.query(`INSERT INTO ${SCHEMA}.test_effects (command_id, note) VALUES ($1, $2)`, [
    msg.id,
    note,
  ]);
}

describe('MessageProcessor (Postgres)', () => {
  it('applies a message once: a second delivery changes nothing and gets the same answer', async () => {
    const msg = message();
    let calls = 0;
    const effect = async (manager: EntityManager, emit: Emit) => {
      calls += 1;
      await writeEffect(manager, msg, 'applied');
      await emit(EVENT, { jobId: 'job-1', status: 'DONE' });
      return { jobId: 'job-1', attempt: calls };
    };

    const first = await processor.process(msg, effect);
    const second = await processor.process(msg, effect);

    expect(first).toEqual({
      outcome: { ok: true, value: { jobId: 'job-1', attempt: 1 } },
      duplicate: false,
      events: [
        {
          id: deriveId(msg.id, `evt/${EVENT}/0`, 24),
          subject: EVENT,
          payload: { jobId: 'job-1', status: 'DONE' },
          correlationId: msg.correlationId,
          occurredAt: msg.issuedAt,
        },
      ],
    });
    expect(second).toEqual({ outcome: first.outcome, duplicate: true, events: [] });
    expect(calls).toBe(1);
    expect(await footprint(msg)).toEqual({ effects: 1, outbox: 1, processed: 1 });
    expect(await processor.find(msg.id)).toEqual(first.outcome);

    const [event] = await dataSource.query<OutboxRow[]>(
      `SELECT id, subject, payload, occurred_at, published_at FROM ${SCHEMA}.outbox WHERE correlation_id = $1`,
      [msg.correlationId],
    );
    expect(event).toEqual({
      id: deriveId(msg.id, `evt/${EVENT}/0`, 24),
      subject: EVENT,
      payload: { jobId: 'job-1', status: 'DONE' },
      occurred_at: new Date(msg.issuedAt),
      published_at: null,
    });

    const [row] = await dataSource.query<Record<string, unknown>[]>(
      `SELECT subject, issued_at, correlation_id, actor_user_id FROM ${SCHEMA}.processed_commands WHERE command_id = $1`,
      [msg.id],
    );
    expect(row).toEqual({
      subject: SUBJECT,
      issued_at: new Date(msg.issuedAt),
      correlation_id: msg.correlationId,
      actor_user_id: 'user-1',
    });
  });

  it('answers a first delivery of a message applied before (fresh, no lookup) from its record: effect rolled back', async () => {
    const msg = message();
    const other = message();
    let calls = 0;
    const effect = (m: MessageIdentity) => async (manager: EntityManager, emit: Emit) => {
      calls += 1;
      await writeEffect(manager, m, 'fresh');
      await emit(EVENT, { call: calls });
      return { call: calls };
    };
    const [first] = await processor.processBatch([{ message: msg, effect: effect(msg), fresh: true }]);
    expect(first).toMatchObject({ outcome: { ok: true, value: { call: 1 } }, duplicate: false });
    // The same command id sent again, alone and then in a batch with a new one: each time the effect ran, was
    // rolled back, and the answer is the recorded one.
    const [alone] = await processor.processBatch([{ message: msg, effect: effect(msg), fresh: true }]);
    expect(alone).toEqual({ outcome: { ok: true, value: { call: 1 } }, duplicate: true, events: [] });
    const batch = await processor.processBatch([
      { message: msg, effect: effect(msg), fresh: true },
      { message: other, effect: effect(other), fresh: true },
    ]);
    expect(batch[0]).toEqual({ outcome: { ok: true, value: { call: 1 } }, duplicate: true, events: [] });
    expect(batch[1]).toMatchObject({ duplicate: false, outcome: { ok: true } });
    expect(await footprint(msg)).toEqual({ effects: 1, outbox: 1, processed: 1 });
    expect(await footprint(other)).toEqual({ effects: 1, outbox: 1, processed: 1 });
  });

  it('answers a fresh delivery refused (DomainError) after the first was applied from the first record', async () => {
    const msg = message();
    await processor.process(msg, async (manager) => writeEffect(manager, msg, 'once'));
    const [again] = await processor.processBatch([
      {
        message: msg,
        fresh: true,
        effect: () => Promise.reject(new DomainError(ErrorCode.InvalidState, 'already done')),
      },
    ]);
    expect(again).toEqual({ outcome: { ok: true, value: null }, duplicate: true, events: [] });
    expect(await footprint(msg)).toEqual({ effects: 1, outbox: 0, processed: 1 });
  });

  it('records an effect that returns nothing as value null', async () => {
    const msg = message();
    const result = await processor.process(msg, async (manager) => {
      await writeEffect(manager, msg, 'void');
      return undefined;
    });
    expect(result).toEqual({ outcome: { ok: true, value: null }, duplicate: false, events: [] });
    expect(await processor.find(msg.id)).toEqual({ ok: true, value: null });
  });

  it('records a DomainError as the answer and rolls back what the effect wrote', async () => {
    const msg = message();
    let calls = 0;
    const failing = async (manager: EntityManager, emit: Emit) => {
      calls += 1;
      await writeEffect(manager, msg, 'must be rolled back');
      await emit(EVENT, { jobId: 'job-2' });
      throw new DomainError(ErrorCode.InvalidState, 'job job-2 is already finished', ['status: COMPLETED']);
    };

    const first = await processor.process(msg, failing);

    const expected = {
      ok: false,
      error: {
        code: ErrorCode.InvalidState,
        message: 'job job-2 is already finished',
        errors: ['status: COMPLETED'],
      },
    };
    expect(first).toEqual({ outcome: expected, duplicate: false, events: [] });
    expect(await footprint(msg)).toEqual({ effects: 0, outbox: 0, processed: 1 });
    expect(await processor.find(msg.id)).toEqual(expected);

    // A redelivery gets the recorded refusal, even if the effect would now succeed.
    const again = await processor.process(msg, async (manager) => {
      calls += 1;
      await writeEffect(manager, msg, 'must not run');
      return 'late success';
    });
    expect(again).toEqual({ outcome: expected, duplicate: true, events: [] });
    expect(calls).toBe(1);
    expect(await footprint(msg)).toEqual({ effects: 0, outbox: 0, processed: 1 });
  });

  it('lets any other error propagate and records nothing, so a redelivery applies the message', async () => {
    const msg = message();
    const crashing = async (manager: EntityManager, emit: Emit) => {
      await writeEffect(manager, msg, 'must be rolled back');
      await emit(EVENT, { jobId: 'job-3' });
      throw new Error('lost the connection half-way');
    };

    await expect(processor.process(msg, crashing)).rejects.toThrow('lost the connection half-way');
    expect(await footprint(msg)).toEqual({ effects: 0, outbox: 0, processed: 0 });
    expect(await processor.find(msg.id)).toBeNull();

    const retried = await processor.process(msg, async (manager, emit) => {
      await writeEffect(manager, msg, 'applied on redelivery');
      await emit(EVENT, { jobId: 'job-3' });
      return 'done';
    });
    expect(retried).toMatchObject({ outcome: { ok: true, value: 'done' }, duplicate: false });
    expect(retried.events.map((e) => e.payload)).toEqual([{ jobId: 'job-3' }]);
    expect(await footprint(msg)).toEqual({ effects: 1, outbox: 1, processed: 1 });
  });

  it.each([
    ['conflicting on the outbox row', true],
    ['conflicting on the processed-commands row', false],
  ])('commits concurrent deliveries of one message once (%s)', async (_label, emits) => {
    const msg = message();
    let started = 0;
    let release: () => void = () => undefined;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const effect = async (manager: EntityManager, emit: Emit) => {
      started += 1;
      const attempt = started;
      if (started === 2) release();
      // Both deliveries are past the "already processed?" check and inside their transactions before either
      // writes (with a way out, should an implementation ever serialise them up front).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([bothStarted, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
      await writeEffect(manager, msg, `attempt ${attempt}`);
      if (emits) await emit(EVENT, { jobId: 'job-4' });
      await manager.query('SELECT pg_sleep(0.05)');
      return { appliedBy: attempt };
    };

    const [a, b] = await Promise.all([processor.process(msg, effect), processor.process(msg, effect)]);

    expect(started).toBe(2);
    expect(a.outcome).toEqual(b.outcome);
    expect(a.outcome.ok).toBe(true);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
    expect(await processor.find(msg.id)).toEqual(a.outcome);
    expect(await footprint(msg)).toEqual({ effects: 1, outbox: emits ? 1 : 0, processed: 1 });
  });

  it('keeps the first recorded failure when one is recorded twice', async () => {
    const msg = message();
    const first = await processor.recordFailure(
      msg,
      MessageProcessor.internalError('gave up after 5 attempts'),
    );
    const second = await processor.recordFailure(msg, { code: ErrorCode.ValidationFailed, message: 'other' });
    expect(first).toEqual({
      outcome: { ok: false, error: { code: ErrorCode.Internal, message: 'gave up after 5 attempts' } },
      duplicate: false,
      events: [],
    });
    expect(second).toEqual({ outcome: first.outcome, duplicate: true, events: [] });
    expect(await footprint(msg)).toEqual({ effects: 0, outbox: 0, processed: 1 });
  });

  it('dates a refusal when it was decided, holding its locks: a command that waited for one of them is dated after it', async () => {
    // A placement refused for want of capacity, and a release waiting for the ledger lock the refusal held: the
    // rollback frees the lock before the refusal is recorded, and a rebuild (which follows processed_at) must still
    // apply the refusal first, as it was decided on a ledger without that release.
    const lock = `message-processor-int-spec/${randomUUID()}`;
    const refused = message();
    const waited = message();
    let holding: () => void = () => undefined;
    const refusalHoldsLock = new Promise<void>((resolve) => (holding = resolve));
    let waitedApplied: Promise<unknown> = Promise.resolve();
    const record = processor.recordFailure.bind(processor);
    // The refusal is recorded only once the waiting command has committed: the order the race can take.
    const spy = jest.spyOn(processor, 'recordFailure').mockImplementation(async (...args) => {
      await waitedApplied;
      return record(...args);
    });
    try {
      const refusal = processor.process(refused, async (manager) => {
        await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lock]);
        holding();
        await manager.query('SELECT pg_sleep(0.05)');
        throw new DomainError(ErrorCode.CapacityUnavailable, 'nothing free on the host');
      });
      await refusalHoldsLock;
      waitedApplied = processor.process(waited, async (manager) => {
        await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lock]);
        return 'released';
      });
      expect((await refusal).outcome).toMatchObject({
        ok: false,
        error: { code: ErrorCode.CapacityUnavailable },
      });
      expect(await waitedApplied).toMatchObject({ outcome: { ok: true, value: 'released' } });
    } finally {
      spy.mockRestore();
    }
    const [row] = await dataSource.query<{ refused_first: boolean }[]>(
      `SELECT (SELECT processed_at FROM ${SCHEMA}.processed_commands WHERE command_id = $1) <
              (SELECT processed_at FROM ${SCHEMA}.processed_commands WHERE command_id = $2) AS refused_first`,
      [refused.id, waited.id],
    );
    expect(row.refused_first).toBe(true);
  });

  describe('batches', () => {
    const notes = async (msg: MessageIdentity) =>
      (
        await dataSource.query<{ note: string }[]>(
          `SELECT note FROM ${SCHEMA}.test_effects WHERE command_id = $1 ORDER BY id`,
          [msg.id],
        )
      ).map((r) => r.note);
    /** Writes a row, emits an event, and answers with how many effect rows existed before it (what it saw). */
    const counting = (msg: MessageIdentity, probe: string) => async (manager: EntityManager, emit: Emit) => {
      const [{ n }] = await manager.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ${SCHEMA}.test_effects WHERE note = $1`,
        [probe],
      );
      await writeEffect(manager, msg, probe);
      await emit(EVENT, { seen: n });
      return { seen: n };
    };

    it('applies several messages in one transaction, in order, each seeing the ones before it', async () => {
      const probe = `probe-${randomUUID()}`;
      const msgs = [message(), message(), message()];
      const before = await dataSource.query<{ n: number }[]>(`SELECT txid_current()::text AS n`);
      const results = await processor.processBatch(
        msgs.map((m) => ({ message: m, effect: counting(m, probe) })),
      );
      expect(results.map((r) => (r instanceof Error ? r : r.outcome))).toEqual([
        { ok: true, value: { seen: 0 } },
        { ok: true, value: { seen: 1 } },
        { ok: true, value: { seen: 2 } },
      ]);
      expect(results.every((r) => !(r instanceof Error) && !r.duplicate && r.events.length === 1)).toBe(true);
      for (const m of msgs) expect(await footprint(m)).toEqual({ effects: 1, outbox: 1, processed: 1 });
      // One commit: the three processed rows carry the same transaction id, in apply order.
      const rows = await dataSource.query<{ command_id: string; xmin: string }[]>(
        `SELECT command_id, xmin::text FROM ${SCHEMA}.processed_commands WHERE command_id = ANY($1)
         ORDER BY processed_at`,
        [msgs.map((m) => m.id)],
      );
      expect(rows.map((r) => r.command_id)).toEqual(msgs.map((m) => m.id));
      expect(new Set(rows.map((r) => r.xmin)).size).toBe(1);
      expect(Number(rows[0].xmin)).toBeGreaterThan(Number(before[0].n));
      // A second delivery of the whole batch changes nothing and answers the same.
      const again = await processor.processBatch(
        msgs.map((m) => ({ message: m, effect: counting(m, probe) })),
      );
      expect(again.map((r) => (r instanceof Error ? r : [r.outcome, r.duplicate]))).toEqual(
        results.map((r) => (r instanceof Error ? r : [r.outcome, true])),
      );
      for (const m of msgs) expect(await footprint(m)).toEqual({ effects: 1, outbox: 1, processed: 1 });
    });

    it('a batch with one failing command applies the others and answers each correctly', async () => {
      const probe = `probe-${randomUUID()}`;
      const [a, bad, c, broken] = [message(), message(), message(), message()];
      let brokenCalls = 0;
      const results = await processor.processBatch([
        { message: a, effect: counting(a, probe) },
        {
          message: bad,
          effect: async (manager) => {
            await writeEffect(manager, bad, probe);
            throw new DomainError(ErrorCode.Conflict, 'the job has already finished');
          },
        },
        { message: c, effect: counting(c, probe) },
        {
          message: broken,
          effect: () => {
            brokenCalls += 1;
            return Promise.reject(new Error('connection reset'));
          },
        },
      ]);
      expect(results[0]).toMatchObject({ outcome: { ok: true, value: { seen: 0 } }, duplicate: false });
      expect(results[1]).toMatchObject({
        outcome: { ok: false, error: { code: ErrorCode.Conflict, message: 'the job has already finished' } },
        duplicate: false,
        events: [],
      });
      // c saw a's row only: the failed command's write was rolled back.
      expect(results[2]).toMatchObject({ outcome: { ok: true, value: { seen: 1 } }, duplicate: false });
      expect(results[3]).toBeInstanceOf(Error);
      expect((results[3] as Error).message).toBe('connection reset');
      expect(await footprint(a)).toEqual({ effects: 1, outbox: 1, processed: 1 });
      expect(await footprint(bad)).toEqual({ effects: 0, outbox: 0, processed: 1 });
      expect(await notes(c)).toEqual([probe]);
      expect(await footprint(broken)).toEqual({ effects: 0, outbox: 0, processed: 0 });
      expect(brokenCalls).toBeGreaterThan(0);
      // The broken one is applied when delivered again.
      const [retried] = await processor.processBatch([{ message: broken, effect: counting(broken, probe) }]);
      expect(retried).toMatchObject({ outcome: { ok: true, value: { seen: 2 } }, duplicate: false });
    });

    it('answers an already applied message from its record and the same message twice in a batch once', async () => {
      const probe = `probe-${randomUUID()}`;
      const [old, fresh] = [message(), message()];
      await processor.process(old, counting(old, probe));
      const results = await processor.processBatch([
        { message: old, effect: counting(old, probe) },
        { message: fresh, effect: counting(fresh, probe) },
        { message: fresh, effect: counting(fresh, probe) },
      ]);
      expect(results.map((r) => (r instanceof Error ? r : [r.outcome, r.duplicate]))).toEqual([
        [{ ok: true, value: { seen: 0 } }, true],
        [{ ok: true, value: { seen: 1 } }, false],
        [{ ok: true, value: { seen: 1 } }, true],
      ]);
      expect(await footprint(fresh)).toEqual({ effects: 1, outbox: 1, processed: 1 });
    });
  });
});
