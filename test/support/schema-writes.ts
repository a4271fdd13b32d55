import type { DataSource } from 'typeorm';

/**
 * What a command wrote to an app's schema, seen from outside: a digest of every table's rows before and after, so
 * an update counts as well as an insert or a delete. The processed-commands table is left out (every command,
 * refused or not, records its answer there), and so is the migrations' bookkeeping.
 */
export class SchemaWrites {
  /** The schema's tables, listed once. */
  private tables?: string[];

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
  ) {}

  /** The tables whose digest differs from `before`'s, sorted. */
  async changedSince(before: Map<string, string>): Promise<string[]> {
    const after = await this.digests();
    return [...after.keys()].filter((table) => after.get(table) !== before.get(table)).sort();
  }

  /** Each table → the md5 of its rows (as text, sorted), in one statement. */
  async digests(): Promise<Map<string, string>> {
    this.tables ??= (
      await this.dataSource.query<{ name: string }[]>(
        `SELECT table_name AS name FROM information_schema.tables
         WHERE table_schema = $1 AND table_type = 'BASE TABLE'
           AND table_name <> 'processed_commands' AND table_name NOT LIKE '%migrations'`,
        [this.schema],
      )
    ).map((row) => row.name);
    if (!this.tables.length) return new Map();
    const rows = await this.dataSource.query<{ name: string; digest: string }[]>(
      this.tables
        .map(
          (table, i) =>
            `SELECT $${i + 1}::text AS name,
               md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest
             FROM "${this.schema}"."${table}" t`,
        )
        .join(' UNION ALL '),
      this.tables,
    );
    return new Map(rows.map((row) => [row.name, row.digest]));
  }
}
