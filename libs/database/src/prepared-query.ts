import type { EntityManager } from 'typeorm';

interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs one of the hot path's statements as a named prepared statement on the transaction's own connection (the pg
 * client under TypeORM's query runner): Postgres parses and plans it once per connection, and the call skips
 * TypeORM's query building and result mapping. Outside a transaction, or on another driver, it falls back to
 * `manager.query`. `name` must identify `text` (one text per name, for the life of the process). Without a name
 * the statement is parsed and planned for this call, with its values: for one whose best plan depends on them, or
 * on how large its table has grown since a named statement's plan was made.
 */
export async function preparedQuery<T>(
  manager: EntityManager,
  name: string | undefined,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const runner = manager.queryRunner as unknown as { connect?: () => Promise<unknown> } | undefined;
  if (runner?.connect) {
    const client = (await runner.connect()) as Partial<PgClient>;
    if (typeof client.query === 'function') {
      // Told to the data source's logger as TypeORM tells it its own queries, so whatever watches the statements
      // (query logging, the medium tests' statement counts) sees these too.
      manager.connection.logger.logQuery(text, values, manager.queryRunner);
      const result = await client.query(name ? { name, text, values } : { text, values });
      return result.rows as T[];
    }
  }
  return manager.query<T[]>(text, values);
}

/**
 * A piece of SQL another repository's statement embeds (one round trip for both): its text with its own parameters
 * numbered from `$first`, their values, and a name for it (the embedding statement's prepared name includes it,
 * so it must identify `sql`, as a statement's name identifies its text).
 */
export interface StatementPart {
  name: string;
  sql: (first: number) => string;
  values: unknown[];
  /**
   * A condition on the part's own result (`(SELECT heard FROM touched)`, say) that a read embedding it adds to its
   * WHERE, true whenever the part ran: Postgres evaluates it once before reading any row, so the part's write, and
   * the locks it takes, come before the rows the read locks. Without it a part that the main statement does not
   * read runs after it, taking its locks last.
   */
  gate?: string;
}

/** `sql` written with parameters `$1…`, numbered from `$first` instead (to embed it in another statement). */
export function numberedFrom(sql: string, first: number): string {
  return sql.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + first - 1}`);
}
