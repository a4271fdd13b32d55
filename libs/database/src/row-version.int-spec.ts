import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { Column, DataSource, Entity, PrimaryColumn, type EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { EntityStatements } from './entity-statements.js';
import { pipelinedTransaction } from './pipelined-transaction.js';
import { isStaleRowVersion, rowVersionColumns, rowVersionOf, type RowVersion } from './row-version.js';

@Entity({ schema: 'versions_spec', name: 'rows' })
class RowEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'integer' })
  n: number;
}

let database: TestDatabase | undefined;
let dataSource: DataSource;
let statements: EntityStatements<RowEntity>;

beforeAll(async () => {
  database = await createTestDatabase('row_version');
  dataSource = new DataSource({
    type: 'postgres',
    url: database.url,
    entities: [RowEntity],
    extra: { max: 3 },
  });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA IF NOT EXISTS versions_spec`);
  await dataSource.query(`CREATE TABLE versions_spec.rows (id text PRIMARY KEY, n integer NOT NULL)`);
  await dataSource.query(`CREATE TABLE versions_spec.marks (id text PRIMARY KEY, hits integer NOT NULL)`);
  statements = new EntityStatements(dataSource, RowEntity, []);
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

let serial = 0;

/** A new row, then written once more in a committed transaction whose RETURNING gives the version (as a lease's). */
async function versioned(): Promise<{ id: string; version: RowVersion }> {
  const id = `r${(serial += 1)}-${Math.random().toString(36).slice(2, 8)}`;
  await dataSource.query(`INSERT INTO versions_spec.rows (id, n) VALUES ($1, 0)`, [id]);
  const [rows] = await dataSource.query<[Record<string, unknown>[], number]>(
    `UPDATE versions_spec.rows AS r SET n = n + 1 WHERE id = $1 RETURNING ${rowVersionColumns('r')}`,
    [id],
  );
  return { id, version: rowVersionOf(rows[0]) };
}

const n = async (id: string) =>
  (await dataSource.query<{ n: number }[]>(`SELECT n FROM versions_spec.rows WHERE id = $1`, [id]))[0].n;

/** Checks the version, then writes the row as a handler that trusted its copy would, in one pipelined transaction. */
function checkedWrite(
  id: string,
  version: RowVersion,
  before?: (manager: EntityManager) => Promise<unknown>,
) {
  return pipelinedTransaction(dataSource, async (manager) => {
    await before?.(manager);
    await statements.lockVersion(id, version, manager);
    await statements.update(Object.assign(new RowEntity(), { id, n: 100 }), manager);
  });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected the transaction to fail'),
    (error: unknown) => error,
  );
}

describe('EntityStatements.lockVersion (Postgres)', () => {
  it("commits when the row is still the version a committed transaction's RETURNING gave, and holds its lock", async () => {
    const { id, version } = await versioned();
    const probe = new pg.Client({ connectionString: database?.url });
    await probe.connect();
    try {
      let lockedMeanwhile: boolean | undefined;
      await pipelinedTransaction(dataSource, async (manager) => {
        await statements.lockVersion(id, version, manager);
        await manager.query('SELECT 1');
        lockedMeanwhile = await probe
          .query(`SELECT 1 FROM versions_spec.rows WHERE id = $1 FOR UPDATE NOWAIT`, [id])
          .then(
            () => false,
            (error: Error) => /could not obtain lock/.test(error.message),
          );
      });
      expect(lockedMeanwhile).toBe(true);
    } finally {
      await probe.end();
    }
    await checkedWrite(id, version);
    expect(await n(id)).toBe(100);
  });

  it('fails the transaction, writing nothing, once another transaction has written the row', async () => {
    const { id, version } = await versioned();
    await dataSource.query(`UPDATE versions_spec.rows SET n = n WHERE id = $1`, [id]);
    const error = await failure(checkedWrite(id, version));
    expect(isStaleRowVersion(error)).toBe(true);
    expect((error as Error).message).toContain(`stale row version of ${id}: 0`);
    expect(await n(id)).toBe(1);
  });

  it('fails it once the same transaction has written the row after the version was taken (same xmin, moved)', async () => {
    const { id } = await versioned();
    let version: RowVersion | undefined;
    const error = await failure(
      pipelinedTransaction(dataSource, async (manager) => {
        const [rows] = await manager.query<[Record<string, unknown>[], number]>(
          `UPDATE versions_spec.rows AS r SET n = 5 WHERE id = $1 RETURNING ${rowVersionColumns('r')}`,
          [id],
        );
        version = rowVersionOf(rows[0]);
        await manager.query(`UPDATE versions_spec.rows SET n = 6 WHERE id = $1`, [id]);
        await statements.lockVersion(id, version, manager);
      }),
    );
    expect(isStaleRowVersion(error)).toBe(true);
    expect(await n(id)).toBe(1);
    // The version taken first was the row's only while that transaction ran: it was rolled back.
    expect(isStaleRowVersion(await failure(checkedWrite(id, version!)))).toBe(true);
  });

  it('waits for a transaction writing the row, then fails when that one commits', async () => {
    const { id, version } = await versioned();
    const writer = new pg.Client({ connectionString: database?.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`UPDATE versions_spec.rows SET n = 7 WHERE id = $1`, [id]);
      const checked = failure(checkedWrite(id, version));
      await new Promise((r) => setTimeout(r, 200));
      await writer.query('COMMIT');
      expect(isStaleRowVersion(await checked)).toBe(true);
      expect(await n(id)).toBe(7);
    } finally {
      await writer.end();
    }
  });

  it('runs a part alongside, first when gated; a gate that fails is a failed check', async () => {
    const { id, version } = await versioned();
    await dataSource.query(`INSERT INTO versions_spec.marks (id, hits) VALUES ($1, 0)`, [id]);
    const mark = (markId: string) => ({
      name: 'mark',
      sql: (first: number) =>
        `marked AS (UPDATE versions_spec.marks SET hits = hits + 1 WHERE id = $${first} RETURNING true AS hit)`,
      values: [markId],
      gate: '(SELECT hit FROM marked)',
    });
    await pipelinedTransaction(dataSource, (manager) =>
      statements.lockVersion(id, version, manager, mark(id)),
    );
    const hits = await dataSource.query<{ hits: number }[]>(
      `SELECT hits FROM versions_spec.marks WHERE id = $1`,
      [id],
    );
    expect(hits[0].hits).toBe(1);
    const error = await failure(
      pipelinedTransaction(dataSource, (manager) =>
        statements.lockVersion(id, version, manager, mark('none')),
      ),
    );
    expect(isStaleRowVersion(error)).toBe(true);
  });

  it('tells its failure from any other', async () => {
    const other = await failure(dataSource.query(`SELECT 'not a number'::int`));
    expect((other as { code?: string }).code).toBe('22P02');
    expect(isStaleRowVersion(other)).toBe(false);
    const { id } = await versioned();
    expect(
      isStaleRowVersion(
        await failure(dataSource.query(`INSERT INTO versions_spec.rows VALUES ($1, 0)`, [id])),
      ),
    ).toBe(false);
  });
});
