import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { preparedQuery } from './prepared-query.js';

interface PgResult {
  rows: unknown[];
  command?: string;
}

interface PgClient {
  pipeline?: boolean;
  connection?: { stream?: { cork(): void; uncork(): void } };
  query(config: string | { name?: string; text: string; values?: unknown[] }): Promise<PgResult>;
}

/** A transaction begun by `pipelinedTransaction`: its connection, and the writes sent but not yet answered. */
interface OpenTransaction {
  client: PgClient;
  sent: Promise<unknown>[];
  corked: boolean;
}

/** What TypeORM's query runner keeps about its transaction (set here as its own startTransaction would). */
interface RunnerTransactionState {
  isTransactionActive: boolean;
  transactionDepth: number;
}

const open = new WeakMap<QueryRunner, OpenTransaction>();

/**
 * Holds the connection's writes until the code running now (its promise continuations included) has issued what it
 * will: a write-behind statement and those after it then leave in one system call rather than one each. Released
 * before the event loop waits for anything, so nothing waits on it.
 */
function cork(tx: OpenTransaction): void {
  const stream = tx.client.connection?.stream;
  if (tx.corked || !stream) return;
  tx.corked = true;
  stream.cork();
  setImmediate(() => {
    tx.corked = false;
    stream.uncork();
  });
}

function send(tx: OpenTransaction, statement: () => Promise<unknown>): void {
  cork(tx);
  const sent = statement();
  // Its failure is read in order at the end (firstFailure): never an unhandled rejection meanwhile.
  sent.catch(() => undefined);
  tx.sent.push(sent);
}

/** The first sent statement that failed, in the order sent: the one the statements after it failed because of. */
async function firstFailure(tx: OpenTransaction): Promise<Error | undefined> {
  const settled = await Promise.allSettled(tx.sent);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (!failed) return undefined;
  return failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
}

function setActive(runner: QueryRunner, active: boolean): void {
  const state = runner as unknown as RunnerTransactionState;
  state.isTransactionActive = active;
  state.transactionDepth = active ? 1 : 0;
}

/**
 * Runs `work` in one transaction, as `DataSource.transaction` does, but without waiting for the answers it does not
 * need: BEGIN goes out with the first statement, each `writeBehind` write with the statement after it, and COMMIT
 * with the last writes. On a connection in pg's pipeline mode (`extra.pipeline`, data-source.ts) they share one
 * round trip; Postgres still runs them one after another, in the order sent, so every read sees the writes sent
 * before it (docs/adr/0013, "Later: statements sent without waiting").
 *
 * A write that fails aborts the transaction, so everything after it fails too and the COMMIT rolls back; the error
 * thrown is that write's, the first failure in statement order, as if each statement had been awaited.
 */
export async function pipelinedTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  let client: Partial<PgClient>;
  try {
    client = (await runner.connect()) as Partial<PgClient>;
  } catch (error) {
    await runner.release();
    throw error;
  }
  if (typeof client.query !== 'function') {
    await runner.release();
    return dataSource.transaction(work);
  }
  const tx: OpenTransaction = { client: client as PgClient, sent: [], corked: false };
  const statement = (text: string): Promise<PgResult> => {
    dataSource.logger.logQuery(text, [], runner);
    return tx.client.query(text);
  };
  try {
    send(tx, () => statement('START TRANSACTION'));
    setActive(runner, true);
    open.set(runner, tx);
    let result: T;
    try {
      result = await work(runner.manager);
    } catch (error) {
      open.delete(runner);
      const earlier = await firstFailure(tx);
      await statement('ROLLBACK').catch(() => undefined);
      throw earlier ?? error;
    }
    open.delete(runner);
    cork(tx);
    const commit = statement('COMMIT');
    // Its failure is read below, once the writes before it are: never an unhandled rejection meanwhile.
    commit.catch(() => undefined);
    const failure = await firstFailure(tx);
    if (failure) {
      // The transaction was aborted by the failed write: its COMMIT answers ROLLBACK.
      await commit.catch(() => undefined);
      throw failure;
    }
    const committed = await commit;
    if (committed.command !== undefined && committed.command !== 'COMMIT') {
      throw new Error(`the transaction was not committed (Postgres answered ${committed.command})`);
    }
    return result;
  } finally {
    open.delete(runner);
    setActive(runner, false);
    await runner.release();
  }
}

/**
 * A write whose answer the caller does not need (no rows, no count): inside `pipelinedTransaction` it is sent at
 * once and not waited for; its failure fails the transaction at its end. Elsewhere it is `preparedQuery`, awaited.
 * Nothing may depend on a write-behind write having succeeded before the transaction commits, other than later
 * statements of the same transaction, which Postgres runs after it. `name` makes it a named prepared statement
 * (one text per name, as for `preparedQuery`); without one it is sent as is.
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
  send(tx, () => tx.client.query(name ? { name, text, values } : values.length ? { text, values } : text));
  return Promise.resolve();
}

/** A statement's rows to come, as `queryBehind` hands them (wrapped: a promise resolving to one would be flattened). */
export interface RowsBehind<T> {
  rows: Promise<T[]>;
}

/**
 * A statement whose rows the caller needs only once the transaction has committed (what a guess sent: see
 * CommandContext.mayGuess). Inside `pipelinedTransaction` it is sent at once and not waited for, like a
 * `writeBehind` write: this resolves at once, and its rows arrive before the COMMIT's answer; its failure fails the
 * transaction at its end, and then `rows` rejects with it too. Elsewhere it is `preparedQuery`, awaited before this
 * resolves (so a failure throws here, as any statement's). `name` as there.
 */
export async function queryBehind<T>(
  manager: EntityManager,
  name: string | undefined,
  text: string,
  values: unknown[] = [],
): Promise<RowsBehind<T>> {
  const tx = manager.queryRunner ? open.get(manager.queryRunner) : undefined;
  if (!tx) return { rows: Promise.resolve(await preparedQuery<T>(manager, name, text, values)) };
  manager.connection.logger.logQuery(text, values, manager.queryRunner);
  let rows!: Promise<T[]>;
  send(tx, () => {
    const sent = tx.client.query(name ? { name, text, values } : { text, values });
    rows = sent.then((result) => result.rows as T[]);
    // Its failure is the transaction's, thrown at its end (firstFailure): never an unhandled rejection here.
    rows.catch(() => undefined);
    return sent;
  });
  return { rows };
}
