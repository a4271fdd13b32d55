import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { Column, DataSource, Entity, PrimaryColumn, type EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { EntityStatements } from './entity-statements.js';

const asNumber = {
  to: (value: number | null) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** Stands for an app's entity: json, a transformed bigint, timestamps, a column that is never rewritten. */
@Entity({ schema: 'statements_spec', name: 'things' })
class ThingEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'jsonb', nullable: true })
  payload: unknown;

  @Column({ name: 'ttl_ms', type: 'bigint', nullable: true, transformer: asNumber })
  ttlMs: number | null;

  @Column({ name: 'seen_at', type: 'timestamptz', nullable: true })
  seenAt: Date | null;

  @Column({ type: 'integer' })
  attempts: number;

  @Column({ type: 'boolean' })
  done: boolean;
}

let database: TestDatabase | undefined;
let dataSource: DataSource;
let statements: EntityStatements<ThingEntity>;

beforeAll(async () => {
  database = await createTestDatabase('entity_statements');
  dataSource = new DataSource({
    type: 'postgres',
    url: database.url,
    entities: [ThingEntity],
    extra: { max: 2 },
  });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA IF NOT EXISTS statements_spec`);
  await dataSource.query(
    `CREATE TABLE statements_spec.things (id text PRIMARY KEY, owner_id text NOT NULL, payload jsonb, ttl_ms bigint,
       seen_at timestamptz, attempts integer NOT NULL, done boolean NOT NULL)`,
  );
  statements = new EntityStatements(dataSource, ThingEntity, ['ownerId']);
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

function thing(id: string, payload: unknown): ThingEntity {
  return Object.assign(new ThingEntity(), {
    id,
    ownerId: 'u1',
    payload,
    ttlMs: 86_400_000,
    seenAt: new Date('2026-01-02T03:04:05.678Z'),
    attempts: 0,
    done: false,
  });
}

describe('EntityStatements (Postgres)', () => {
  it.each([
    ['an object', { a: 1, nested: ['x', null] }],
    ['an array (pg would write a Postgres array literal)', [1, 2, 3]],
    ['a string', 'plain'],
    ['SQL NULL', null],
  ])('inserts, locks and reads back what the ORM reads, with json as %s', async (_label, payload) => {
    const id = `t-${Math.random().toString(36).slice(2)}`;
    await dataSource.transaction((manager) => statements.insert(thing(id, payload), manager));
    const viaOrm = await dataSource.manager.findOneByOrFail(ThingEntity, { id });
    const locked = await dataSource.transaction((manager) => statements.lockById(id, manager));
    expect(locked).toBeInstanceOf(ThingEntity);
    expect(locked).toEqual(viaOrm);
    expect(locked).toEqual(thing(id, payload));
  });

  it('writes every mutable column back and leaves the others alone; null for an unknown id', async () => {
    const id = `t-${Math.random().toString(36).slice(2)}`;
    await dataSource.transaction((manager) => statements.insert(thing(id, { v: 1 }), manager));
    await dataSource.transaction(async (manager) => {
      const row = (await statements.lockById(id, manager))!;
      Object.assign(row, {
        ownerId: 'someone else',
        payload: [{ v: 2 }],
        ttlMs: null,
        attempts: 3,
        done: true,
      });
      await statements.update(row, manager);
    });
    expect(await dataSource.manager.findOneByOrFail(ThingEntity, { id })).toEqual({
      ...thing(id, [{ v: 2 }]),
      ttlMs: null,
      attempts: 3,
      done: true,
    });
    expect(await dataSource.transaction((manager) => statements.lockById('missing', manager))).toBeNull();
  });

  it('updateWith writes the row and the CTE alongside in one statement, its parameters after the row', async () => {
    const id = `t-${Math.random().toString(36).slice(2)}`;
    const other = `o-${Math.random().toString(36).slice(2)}`;
    await dataSource.transaction(async (manager) => {
      await statements.insert(thing(id, { v: 1 }), manager);
      await statements.insert(thing(other, null), manager);
    });
    const alongside = {
      name: 'mark-other',
      sql: (first: number) =>
        `marked AS (UPDATE statements_spec.things SET attempts = $${first}, done = $${first + 1} WHERE id = $${first + 2})`,
    };
    await dataSource.transaction(async (manager) => {
      const row = (await statements.lockById(id, manager))!;
      row.attempts = 7;
      await statements.updateWith(row, manager, { ...alongside, values: [9, true, other] });
    });
    expect(await dataSource.manager.findOneByOrFail(ThingEntity, { id })).toEqual({
      ...thing(id, { v: 1 }),
      attempts: 7,
    });
    expect(await dataSource.manager.findOneByOrFail(ThingEntity, { id: other })).toEqual({
      ...thing(other, null),
      attempts: 9,
      done: true,
    });
    // A failing CTE rolls the row's write back with it: one statement.
    await expect(
      dataSource.transaction(async (manager) => {
        const row = (await statements.lockById(id, manager))!;
        row.attempts = 8;
        await statements.updateWith(row, manager, { ...alongside, values: [null, true, other] });
      }),
    ).rejects.toThrow(/null value/);
    expect((await dataSource.manager.findOneByOrFail(ThingEntity, { id })).attempts).toBe(7);
  });

  it('holds the row lock until the transaction ends', async () => {
    const id = `t-${Math.random().toString(36).slice(2)}`;
    await dataSource.transaction((manager) => statements.insert(thing(id, null), manager));
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = dataSource.transaction(async (manager) => {
      await statements.lockById(id, manager);
      order.push('first locked');
      await held;
      order.push('first done');
    });
    while (!order.length) await new Promise((r) => setTimeout(r, 5));
    const second = dataSource.transaction(async (manager) => {
      await statements.lockById(id, manager);
      order.push('second locked');
    });
    await new Promise((r) => setTimeout(r, 100));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first locked', 'first done', 'second locked']);
  });

  it('refuses an insert that lacks a column', async () => {
    const incomplete = Object.assign(new ThingEntity(), { id: 'x', ownerId: 'u1' });
    await expect(dataSource.transaction((manager) => statements.insert(incomplete, manager))).rejects.toThrow(
      'insert without payload',
    );
  });

  it('insertMany inserts what an insert each would, in one statement', async () => {
    const tag = Math.random().toString(36).slice(2);
    const payloads: unknown[] = [
      { a: 1, nested: ['x', null], quote: 'say "hi"\\ and \n' },
      [1, 2, 3],
      'plain',
      null,
      1.5,
      { accents: 'é ü 漢字' },
    ];
    const many = payloads.map((payload, i) => ({
      ...thing(`m-${tag}-${i}`, payload),
      ttlMs: i ? 1000 * i : null,
    }));
    const one = payloads.map((payload, i) => ({
      ...thing(`s-${tag}-${i}`, payload),
      ttlMs: i ? 1000 * i : null,
    }));
    const statementsSent: string[] = [];
    await dataSource.transaction(async (manager) => {
      const log = manager.connection.logger.logQuery.bind(manager.connection.logger);
      manager.connection.logger.logQuery = (query, ...rest) => {
        statementsSent.push(query);
        log(query, ...rest);
      };
      try {
        await statements.insertMany(
          many.map((t) => Object.assign(new ThingEntity(), t)),
          manager,
        );
      } finally {
        manager.connection.logger.logQuery = log;
      }
    });
    expect(statementsSent.filter((q) => q.startsWith('INSERT'))).toHaveLength(1);
    for (const t of one) {
      await dataSource.transaction((manager) =>
        statements.insert(Object.assign(new ThingEntity(), t), manager),
      );
    }
    const read = async (prefix: string) =>
      dataSource.query<unknown[]>(
        `SELECT substr(id, 3) AS n, owner_id, payload, payload IS NULL AS sql_null, ttl_ms, seen_at, attempts, done
           FROM statements_spec.things WHERE id LIKE $1 ORDER BY id`,
        [`${prefix}-${tag}-%`],
      );
    const viaMany = await read('m');
    expect(viaMany).toHaveLength(payloads.length);
    expect(viaMany).toEqual(await read('s'));
    await expect(
      dataSource.transaction((manager) =>
        statements.insertMany(
          [thing(`x-${tag}`, null), Object.assign(new ThingEntity(), { id: `y-${tag}`, ownerId: 'u1' })],
          manager,
        ),
      ),
    ).rejects.toThrow('insert without payload');
  });

  it('updateMany writes the rows as taken, each as an update would, with a CTE alongside after the rows', async () => {
    const tag = Math.random().toString(36).slice(2);
    const ids = [0, 1, 2].map((i) => `u-${tag}-${i}`);
    const marker = `k-${tag}`;
    await dataSource.transaction(async (manager) => {
      for (const id of [...ids, marker]) await statements.insert(thing(id, { v: 0 }), manager);
    });
    await dataSource.transaction(async (manager) => {
      const rows = await statements.lockByIds(ids, manager);
      const taken = [...rows.values()].map((row, i) => {
        Object.assign(row, {
          payload: i === 1 ? null : { v: i, s: 'a"b' },
          ttlMs: null,
          attempts: i + 1,
          ownerId: 'no',
        });
        return statements.updateRow(row);
      });
      // Changed after it was taken: not written.
      rows.get(ids[0])!.attempts = 99;
      await statements.updateMany(taken, manager, {
        name: 'mark',
        sql: (first) =>
          `marked AS (UPDATE statements_spec.things SET done = $${first} WHERE id = $${first + 1})`,
        values: [true, marker],
      });
    });
    const after = await dataSource.manager.findBy(ThingEntity, {});
    const byId = new Map(after.map((t) => [t.id, t]));
    expect(byId.get(ids[0])).toEqual({ ...thing(ids[0], { v: 0, s: 'a"b' }), ttlMs: null, attempts: 1 });
    expect(byId.get(ids[1])).toEqual({ ...thing(ids[1], null), ttlMs: null, attempts: 2 });
    expect(byId.get(ids[2])).toEqual({ ...thing(ids[2], { v: 2, s: 'a"b' }), ttlMs: null, attempts: 3 });
    expect(byId.get(marker)).toEqual({ ...thing(marker, { v: 0 }), done: true });
    const row = statements.updateRow(thing(ids[0], null));
    await expect(
      dataSource.transaction((manager) => statements.updateMany([row, row], manager)),
    ).rejects.toThrow('updateMany with a key twice');
  });

  it('lockById and lockByIds send a write alongside in the same statement, its parameters after theirs', async () => {
    const tag = Math.random().toString(36).slice(2);
    const [a, b, marker] = ['a', 'b', 'k'].map((n) => `w-${tag}-${n}`);
    await dataSource.transaction(async (manager) => {
      for (const id of [a, b, marker]) await statements.insert(thing(id, null), manager);
    });
    const bump = (by: number) => ({
      name: 'bump-marker',
      sql: (first: number) =>
        `bumped AS (UPDATE statements_spec.things SET attempts = attempts + $${first} WHERE id = $${first + 1})`,
      values: [by, marker],
    });
    const one = await dataSource.transaction((manager) => statements.lockById(a, manager, bump(2)));
    expect(one).toEqual(thing(a, null));
    const many = await dataSource.transaction((manager) =>
      statements.lockByIds([b, a, 'none'], manager, bump(3)),
    );
    expect([...many.keys()]).toEqual([a, b]);
    expect((await dataSource.manager.findOneByOrFail(ThingEntity, { id: marker })).attempts).toBe(5);
    // A write alongside that fails fails the lock's statement.
    await expect(
      dataSource.transaction((manager) =>
        statements.lockById(a, manager, {
          name: 'bump-bad',
          sql: (first: number) =>
            `bad AS (UPDATE statements_spec.things SET attempts = NULL WHERE id = $${first})`,
          values: [marker],
        }),
      ),
    ).rejects.toThrow(/null value/);
  });

  it('a gated part locks its rows before the read locks its own; an ungated one after', async () => {
    const tag = Math.random().toString(36).slice(2);
    const [row, marker] = ['r', 'k'].map((n) => `g-${tag}-${n}`);
    await dataSource.transaction(async (manager) => {
      for (const id of [row, marker]) await statements.insert(thing(id, null), manager);
    });
    const part = (gated: boolean) => ({
      name: gated ? 'bump-gated' : 'bump-ungated',
      sql: (first: number) =>
        `bumped AS (UPDATE statements_spec.things SET attempts = attempts + 1 WHERE id = $${first} RETURNING true AS done)`,
      values: [marker],
      ...(gated ? { gate: '(SELECT done FROM bumped)' } : {}),
    });
    const client = async () => {
      const c = new pg.Client({ connectionString: database?.url });
      await c.connect();
      return c;
    };
    const [holder, checker] = [await client(), await client()];
    try {
      // With the part's row held elsewhere, the lock's statement waits on it; is the read's row locked meanwhile?
      const rowLockedWhileWaiting = async (lock: (manager: EntityManager) => Promise<unknown>) => {
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM statements_spec.things WHERE id = $1 FOR UPDATE`, [marker]);
        const waiting = dataSource.transaction(lock);
        await new Promise((r) => setTimeout(r, 300));
        const probe = await checker
          .query(`SELECT 1 FROM statements_spec.things WHERE id = $1 FOR UPDATE NOWAIT`, [row])
          .then(
            () => false,
            (error: Error) => /could not obtain lock/.test(error.message),
          );
        await holder.query('COMMIT');
        await waiting;
        return probe;
      };
      expect(await rowLockedWhileWaiting((m) => statements.lockById(row, m, part(true)))).toBe(false);
      expect(await rowLockedWhileWaiting((m) => statements.lockByIds([row], m, part(true)))).toBe(false);
      expect(await rowLockedWhileWaiting((m) => statements.lockById(row, m, part(false)))).toBe(true);
      // The gated read still returns its row, and the part ran each time.
      const read = await dataSource.transaction((m) => statements.lockById(row, m, part(true)));
      expect(read).toEqual(thing(row, null));
      expect((await dataSource.manager.findOneByOrFail(ThingEntity, { id: marker })).attempts).toBe(4);
    } finally {
      await Promise.all([holder.end(), checker.end()]);
    }
  });
});
