import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { preparedQuery } from './prepared-query.js';

/** node-postgres's client, as `QueryRunner.connect()` hands it over on the postgres driver. */
interface PgClient {
  query(config: string | { name?: string; text: string; values?: unknown[] }): Promise<unknown>;
}

/**
 * A transaction begun by `pipelinedTransaction`: its connection, the writes sent but not yet answered, and what its
 * handlers keep for the rest of it (`transactionScratch`).
 */
interface OpenTransaction {
  client: PgClient;
  sent: Promise<unknown>[];
  scratch: Map<object, unknown>;
}

const open = new WeakMap<QueryRunner, OpenTransaction>();

/** The first sent write that failed, in the order sent: the one the statements after it failed because of. */
async function firstFailure(sent: Promise<unknown>[]): Promise<Error | undefined> {
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (!failed) return undefined;
  return failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
}

/**
 * `DataSource.transaction`, in which a `writeBehind` write is sent without waiting for its answer. The apps'
 * connections are in node-postgres's pipeline mode (`pipeline: true`, data-source.ts), so such a write shares a
 * round trip with the statements after it; Postgres still runs them one after another, in the order sent, so every
 * read sees the writes sent before it (docs/adr/0013, "Writes sent without waiting"). Only public APIs: TypeORM's
 * transaction and query runner, and the pg client `QueryRunner.connect()` returns.
 *
 * A write that fails aborts the transaction, so everything after it fails too; the error thrown is that write's,
 * the first failure in statement order, as if each statement had been awaited, and TypeORM rolls back.
 */
export function pipelinedTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  return dataSource.transaction(async (manager) => {
    const runner = manager.queryRunner!;
    const client = (await runner.connect()) as Partial<PgClient>;
    if (typeof client.query !== 'function') return work(manager);
    const tx: OpenTransaction = { client: client as PgClient, sent: [], scratch: new Map() };
    open.set(runner, tx);
    try {
      let result: T;
      try {
        result = await work(manager);
      } catch (error) {
        throw (await firstFailure(tx.sent)) ?? error;
      }
      const failure = await firstFailure(tx.sent);
      if (failure) throw failure;
      return result;
    } finally {
      open.delete(runner);
    }
  });
}

/**
 * A write whose answer the caller does not need (no rows, no count): inside `pipelinedTransaction` it is handed to
 * the connection at once and not waited for; its failure fails the transaction at its end. Elsewhere it is
 * `preparedQuery`, awaited. Nothing may depend on a write-behind write having succeeded before the transaction
 * commits, other than later statements of the same transaction, which Postgres runs after it. `name` makes it a
 * named prepared statement (one text per name, as for `preparedQuery`); without one it is sent as is.
 */
export function writeBehind(
  manager: EntityManager,
  name: string | undefined,
  text: string,
  values: unknown[] = [],
): Promise<void> {
  const tx = manager.queryRunner ? open.get(manager.queryRunner) : undefined;
  if (!tx) {
    const awaited = name ? preparedQuery(manager, name, text, values) : manager.query(text, values);
    return awaited.then(() => undefined);
  }
  manager.connection.logger.logQuery(text, values, manager.queryRunner);
  // Handed to the client now, before any statement issued after this call: pg sends them in call order.
  const sent = tx.client.query(name ? { name, text, values } : values.length ? { text, values } : text);
  // Its failure is read in order at the end (firstFailure): never an unhandled rejection meanwhile.
  sent.catch(() => undefined);
  tx.sent.push(sent);
  return Promise.resolve();
}

/**
 * What handlers keep for the rest of the transaction they run in (a lane's batch: what one command read for the
 * commands after it), by key; undefined outside `pipelinedTransaction`, where nothing is kept. It goes with the
 * transaction, so nothing kept here outlives it; a pipelined savepoint's rollback empties it, since what was kept
 * may describe writes the rollback undid.
 */
export function transactionScratch(manager: EntityManager): Map<object, unknown> | undefined {
  return manager.queryRunner ? open.get(manager.queryRunner)?.scratch : undefined;
}

let savepointIds = 0;

/**
 * `work` in a savepoint of the transaction: rolled back to it if `work` throws (the error is rethrown), released
 * otherwise, as `manager.transaction` nested in a transaction does, but inside `pipelinedTransaction` the
 * SAVEPOINT and the RELEASE are sent without waiting (writeBehind): they share the round trips of the statements
 * after them, two fewer per savepoint. Only the rollback is awaited. Elsewhere it is TypeORM's nested transaction.
 */
export async function pipelinedSavepoint<T>(
  manager: EntityManager,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const tx = manager.queryRunner ? open.get(manager.queryRunner) : undefined;
  if (!tx) return manager.transaction(work);
  const name = `pipelined_${++savepointIds}`;
  await writeBehind(manager, undefined, `SAVEPOINT ${name}`);
  const sentBefore = tx.sent.length;
  try {
    const result = await work(manager);
    await writeBehind(manager, undefined, `RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (thrown) {
    // As in the transaction: a write sent behind that failed is why, not the aborted statements after it.
    const error = (await firstFailure(tx.sent.slice(sentBefore))) ?? thrown;
    // As TypeORM does: the rollback's own failure (the connection lost, say) yields to the error that caused it.
    const rolledBack = await manager.query(`ROLLBACK TO SAVEPOINT ${name}`).then(
      () => true,
      () => false,
    );
    // What was sent without waiting inside the savepoint is undone with it: its failures no longer fail the
    // transaction at its end (the error thrown here says what went wrong).
    if (rolledBack) tx.sent.length = sentBefore;
    tx.scratch.clear();
    throw error;
  }
}
