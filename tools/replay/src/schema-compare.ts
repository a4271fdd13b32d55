import pg from 'pg';
import { excludedColumns } from './rebuild-scope.js';

export interface TableDifference {
  table: string;
  liveRows: number;
  rebuiltRows: number;
  onlyLive: string[];
  onlyRebuilt: string[];
  /** Rows present on both sides that differ, with the columns that differ. */
  changed: { key: string; columns: Record<string, { live: unknown; rebuilt: unknown }> }[];
}

export interface ComparisonReport {
  tables: { table: string; rows: number; identical: boolean; skipped?: true; leftOut?: string[] }[];
  differences: TableDifference[];
}

const SAMPLE = 5;

/**
 * A read-only REPEATABLE READ transaction on a database: one consistent snapshot for every query made through it
 * (a rebuild reads the live database's outcomes and rows in the same one; docs/adr/0025-replay-speed.md).
 */
export async function openSnapshot(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (error) {
    await client.end();
    throw error;
  }
  return client;
}

/**
 * Compares two databases schema by schema, table by table: rows are matched on their primary key and compared as
 * JSON, less the columns `rebuild-scope.ts` leaves out. Tables are found in the catalog, so a new table is
 * compared without anyone listing it. `live` is a snapshot (openSnapshot) its caller ends; the rebuilt side is
 * read in a snapshot of its own.
 */
export async function compareDatabases(
  live: pg.Client,
  rebuiltUrl: string,
  schemas: readonly string[],
): Promise<ComparisonReport> {
  const rebuilt = await openSnapshot(rebuiltUrl);
  const report: ComparisonReport = { tables: [], differences: [] };
  try {
    for (const schema of schemas) {
      const tables = await listTables(live, schema);
      const rebuiltTables = new Set(await listTables(rebuilt, schema));
      for (const table of tables) {
        const name = `${schema}.${table}`;
        const leftOut = excludedColumns(schema, table);
        if (leftOut === null) {
          report.tables.push({ table: name, rows: 0, identical: true, skipped: true });
          continue;
        }
        if (!rebuiltTables.has(table)) throw new Error(`${name} is missing from the rebuilt database`);
        const key = await primaryKey(live, schema, table);
        const [a, b] = await Promise.all([
          rows(live, schema, table, key, leftOut),
          rows(rebuilt, schema, table, key, leftOut),
        ]);
        const difference = diff(name, a, b);
        report.tables.push({
          table: name,
          rows: a.size,
          identical: !difference,
          ...(leftOut.length ? { leftOut } : {}),
        });
        if (difference) report.differences.push(difference);
      }
    }
  } finally {
    await rebuilt.end();
  }
  return report;
}

async function listTables(client: pg.Client, schema: string): Promise<string[]> {
  const result = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [schema],
  );
  return result.rows.map((r) => r.table_name);
}

async function primaryKey(client: pg.Client, schema: string, table: string): Promise<string[]> {
  const result = await client.query<{ column_name: string }>(
    `SELECT a.attname AS column_name
       FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = format('%I.%I', $1::text, $2::text)::regclass AND i.indisprimary
      ORDER BY array_position(i.indkey, a.attnum)`,
    [schema, table],
  );
  if (!result.rows.length) throw new Error(`${schema}.${table} has no primary key: rows cannot be matched`);
  return result.rows.map((r) => r.column_name);
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function rows(
  client: pg.Client,
  schema: string,
  table: string,
  key: string[],
  leftOut: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const minus = leftOut.map((c) => ` - '${c.replaceAll("'", "''")}'`).join('');
  const keyExpr = key.map((k) => `${ident(k)}::text`).join(` || '/' || `);
  const result = await client.query<{ k: string; row: Record<string, unknown> }>(
    `SELECT ${keyExpr} AS k, to_jsonb(t)${minus} AS row FROM ${ident(schema)}.${ident(table)} t ORDER BY 1`,
  );
  return new Map(result.rows.map((r) => [r.k, r.row]));
}

function diff(
  table: string,
  live: Map<string, Record<string, unknown>>,
  rebuilt: Map<string, Record<string, unknown>>,
): TableDifference | null {
  const difference: TableDifference = {
    table,
    liveRows: live.size,
    rebuiltRows: rebuilt.size,
    onlyLive: [],
    onlyRebuilt: [],
    changed: [],
  };
  let changedCount = 0;
  for (const [key, row] of live) {
    const other = rebuilt.get(key);
    if (!other) {
      difference.onlyLive.push(key);
      continue;
    }
    const columns: TableDifference['changed'][number]['columns'] = {};
    for (const column of new Set([...Object.keys(row), ...Object.keys(other)])) {
      if (JSON.stringify(row[column]) !== JSON.stringify(other[column])) {
        columns[column] = { live: row[column], rebuilt: other[column] };
      }
    }
    if (Object.keys(columns).length) {
      changedCount++;
      if (difference.changed.length < SAMPLE) difference.changed.push({ key, columns });
    }
  }
  for (const key of rebuilt.keys()) if (!live.has(key)) difference.onlyRebuilt.push(key);
  const same = !difference.onlyLive.length && !difference.onlyRebuilt.length && changedCount === 0;
  return same ? null : difference;
}
