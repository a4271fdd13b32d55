import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
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
});
