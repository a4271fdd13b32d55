import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { appDataSourceOptions } from './data-source.js';
import { pipelinedSavepoint, pipelinedTransaction, writeBehind } from './pipelined-transaction.js';

let database: TestDatabase | undefined;
let dataSource: DataSource;

const INSERT = 'INSERT INTO pipelined_spec.things (id, n) VALUES ($1, $2)';

const insert = (manager: EntityManager, id: string, n = 1) =>
  writeBehind(manager, 'pipelined-spec.insert', INSERT, [id, n]);

async function ids(): Promise<string[]> {
  const rows = await dataSource.query<{ id: string }[]>('SELECT id FROM pipelined_spec.things ORDER BY id');
  return rows.map((row) => row.id);
}

beforeAll(async () => {
  database = await createTestDatabase('pipelined_transaction');
  // One connection, as the apps' pool options have it (pipeline mode): every case below reuses the connection the
  // case before it left, so a transaction left open or aborted would show.
  const options = appDataSourceOptions(
    { schema: 'pipelined_spec', entities: [], migrations: [] },
    database.url,
    1,
  );
  dataSource = new DataSource(options);
  await dataSource.initialize();
  await dataSource.query('CREATE SCHEMA IF NOT EXISTS pipelined_spec');
  await dataSource.query('CREATE TABLE pipelined_spec.things (id text PRIMARY KEY, n integer NOT NULL)');
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await database?.drop();
});

beforeEach(async () => {
  await dataSource.query('DELETE FROM pipelined_spec.things');
  await dataSource.query(`INSERT INTO pipelined_spec.things (id, n) VALUES ('existing', 0)`);
});

describe('pipelinedTransaction', () => {
  it("runs on the apps' connections in pg's pipeline mode", async () => {
    const runner = dataSource.createQueryRunner();
    try {
      const client = (await runner.connect()) as { pipeline?: boolean };
      expect(client.pipeline).toBe(true);
    } finally {
      await runner.release();
    }
  });

  it('lets a later read see the writes sent before it, and commits them all', async () => {
    const seen = await pipelinedTransaction(dataSource, async (manager) => {
      await insert(manager, 'a');
      await insert(manager, 'b', 2);
      const rows = await manager.query<{ total: number }[]>(
        'SELECT sum(n)::int AS total FROM pipelined_spec.things',
      );
      await insert(manager, 'c');
      return rows[0].total;
    });
    expect(seen).toBe(3);
    expect(await ids()).toEqual(['a', 'b', 'c', 'existing']);
  });

  it("fails with the failed write's own error, not the aborted transaction's, and keeps nothing", async () => {
    const attempt = pipelinedTransaction(dataSource, async (manager) => {
      await insert(manager, 'a');
      await insert(manager, 'existing');
      // Postgres refuses this read (the transaction is aborted); the write's error is the one reported.
      await manager.query('SELECT count(*) FROM pipelined_spec.things');
    });
    await expect(attempt).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual(['existing']);
  });

  it('fails the commit for a write that failed after the last statement the work waited for', async () => {
    const attempt = pipelinedTransaction(dataSource, async (manager) => {
      await insert(manager, 'a');
      await insert(manager, 'existing');
      return 'answered';
    });
    await expect(attempt).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual(['existing']);
  });

  it('reports the failed write when the work threw after it', async () => {
    const attempt = pipelinedTransaction(dataSource, async (manager) => {
      await insert(manager, 'existing');
      throw new Error('a rule refused');
    });
    await expect(attempt).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual(['existing']);
  });

  it("rolls back the writes sent behind when the work throws, with the work's error", async () => {
    const attempt = pipelinedTransaction(dataSource, async (manager) => {
      await insert(manager, 'a');
      throw new Error('a rule refused');
    });
    await expect(attempt).rejects.toThrow('a rule refused');
    expect(await ids()).toEqual(['existing']);
  });

  it('leaves the connection usable after each failure', async () => {
    await expect(
      pipelinedTransaction(dataSource, (manager) => insert(manager, 'existing')),
    ).rejects.toMatchObject({ code: '23505' });
    await pipelinedTransaction(dataSource, (manager) => insert(manager, 'after'));
    expect(await ids()).toEqual(['after', 'existing']);
  });
});

describe('writeBehind outside a pipelined transaction', () => {
  it('is awaited: its failure is its caller’s', async () => {
    await expect(insert(dataSource.manager, 'existing')).rejects.toMatchObject({ code: '23505' });
    await insert(dataSource.manager, 'x');
    expect(await ids()).toEqual(['existing', 'x']);
  });

  it('is awaited inside a transaction begun elsewhere', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await insert(manager, 'y');
        await insert(manager, 'existing');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await ids()).toEqual(['existing']);
  });
});

describe('a write sent behind', () => {
  it('is not waited for in a pipelined transaction: the work goes on while Postgres still holds it', async () => {
    // Another session holds the lock the write asks for: the work goes on only if it does not wait for it.
    const holder = new pg.Client({ connectionString: database!.url });
    await holder.connect();
    let held = true;
    try {
      await holder.query('SELECT pg_advisory_lock(4242)');
      let workDone = false;
      const committed = pipelinedTransaction(dataSource, async (manager) => {
        await writeBehind(manager, undefined, 'SELECT pg_advisory_xact_lock(4242)');
        expect(held).toBe(true);
        await insert(manager, 'q');
        workDone = true;
      });
      // The work ran to its end while the lock was still held: neither write was waited for.
      for (let i = 0; i < 100 && !workDone; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(workDone).toBe(true);
      // Nothing committed yet (read from the other session: the transaction holds the one pooled connection).
      const { rows } = await holder.query<{ id: string }>('SELECT id FROM pipelined_spec.things ORDER BY id');
      expect(rows.map((row) => row.id)).toEqual(['existing']);
      held = false;
      await holder.query('SELECT pg_advisory_unlock(4242)');
      await committed;
      expect(await ids()).toEqual(['existing', 'q']);
    } finally {
      await holder.end();
    }
  });
});

describe('pipelinedSavepoint', () => {
  it("keeps the work's writes, or rolls back to before them (a failed write sent behind included)", async () => {
    await pipelinedTransaction(dataSource, async (manager) => {
      await insert(manager, 'a');
      expect(await pipelinedSavepoint(manager, async (m) => (await insert(m, 'b'), 'kept'))).toBe('kept');
      const failed = pipelinedSavepoint(manager, async (m) => {
        await insert(m, 'c');
        await insert(m, 'existing');
        await m.query('SELECT 1');
      });
      await expect(failed).rejects.toMatchObject({ code: '23505' });
      // The transaction goes on after the rollback, and its commit does not fail for the write rolled back.
      await insert(manager, 'd');
    });
    expect(await ids()).toEqual(['a', 'b', 'd', 'existing']);
  });
});
