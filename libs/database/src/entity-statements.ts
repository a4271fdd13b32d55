import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { writeBehind } from './pipelined-transaction.js';
import { preparedQuery, type StatementPart } from './prepared-query.js';

function transformFrom(column: ColumnMetadata, value: unknown): unknown {
  const transformer = column.transformer;
  if (!transformer) return value;
  return Array.isArray(transformer)
    ? transformer.reduceRight((v, t) => t.from(v) as unknown, value)
    : (transformer.from(value) as unknown);
}

function transformTo(column: ColumnMetadata, value: unknown): unknown {
  const transformer = column.transformer;
  let out = value;
  if (transformer) {
    out = Array.isArray(transformer)
      ? transformer.reduce((v, t) => t.to(v) as unknown, value)
      : (transformer.to(value) as unknown);
  }
  // pg would write a JS array as a Postgres array literal: json columns get their JSON text.
  if ((column.type === 'jsonb' || column.type === 'json') && out !== null && out !== undefined) {
    return JSON.stringify(out);
  }
  return out;
}

/**
 * The statements every command of an entity runs — insert a row, read it locked by its primary key, write its
 * mutable columns back — as named prepared statements built once from the entity's TypeORM metadata (same columns, same
 * transformers, same json handling), without building a query per call. For a single-column primary key. The
 * writes answer nothing, so in a pipelined transaction they are sent without waiting (writeBehind).
 */
export class EntityStatements<E extends ObjectLiteral> {
  private readonly columns: ColumnMetadata[];
  private readonly primary: ColumnMetadata;
  private readonly selectLocked: string;
  private readonly selectManyLocked: string;
  private readonly updateText: string;
  private readonly insertText: string;
  private readonly mutable: ColumnMetadata[];
  private readonly name: string;

  constructor(
    dataSource: DataSource,
    private readonly target: EntityTarget<E>,
    /** Columns `update` never writes besides the key (set once at insert, or too large to rewrite). */
    immutable: (keyof E & string)[],
  ) {
    const metadata = dataSource.getMetadata(target);
    if (metadata.primaryColumns.length !== 1)
      throw new Error(`${metadata.name}: one primary key column expected`);
    this.primary = metadata.primaryColumns[0];
    this.columns = metadata.columns;
    this.name = metadata.tablePath;
    const table = metadata.schema
      ? `"${metadata.schema}"."${metadata.tableName}"`
      : `"${metadata.tableName}"`;
    const key = `"${this.primary.databaseName}"`;
    this.selectLocked = `SELECT ${this.columns.map((c) => `"${c.databaseName}"`).join(', ')} FROM ${table} WHERE ${key} = $1 FOR UPDATE`;
    // In key order: two transactions locking overlapping sets lock them in the same order, so neither waits on the
    // other for a row it holds.
    this.selectManyLocked = `SELECT ${this.columns.map((c) => `"${c.databaseName}"`).join(', ')} FROM ${table} WHERE ${key} = ANY($1) ORDER BY ${key} FOR UPDATE`;
    this.insertText =
      `INSERT INTO ${table} (${this.columns.map((c) => `"${c.databaseName}"`).join(', ')}) ` +
      `VALUES (${this.columns.map((_c, i) => `$${i + 1}`).join(', ')})`;
    this.mutable = this.columns.filter(
      (c) => !c.isPrimary && !immutable.includes(c.propertyName as keyof E & string),
    );
    this.updateText =
      `UPDATE ${table} SET ${this.mutable.map((c, i) => `"${c.databaseName}" = $${i + 2}`).join(', ')} ` +
      `WHERE ${key} = $1`;
  }

  /** The row, locked for the rest of the transaction; null when there is none. */
  async lockById(id: unknown, manager: EntityManager): Promise<E | null> {
    const rows = await preparedQuery<Record<string, unknown>>(
      manager,
      `${this.name}.lock`,
      this.selectLocked,
      [id],
    );
    return rows.length ? this.entityOf(rows[0], manager) : null;
  }

  /** The rows of `ids` that exist, locked for the rest of the transaction, by primary key. */
  async lockByIds(ids: readonly unknown[], manager: EntityManager): Promise<Map<unknown, E>> {
    const rows = await preparedQuery<Record<string, unknown>>(
      manager,
      `${this.name}.lock-many`,
      this.selectManyLocked,
      [ids],
    );
    const key = this.primary;
    return new Map(
      rows.map((row) => [transformFrom(key, row[key.databaseName]), this.entityOf(row, manager)]),
    );
  }

  private entityOf(row: Record<string, unknown>, manager: EntityManager): E {
    const entity: E = manager.create(this.target);
    const record = entity as Record<string, unknown>;
    for (const column of this.columns)
      record[column.propertyName] = transformFrom(column, row[column.databaseName]);
    return entity;
  }

  /** Inserts the row: every column, so `entity` must have them all (no column default applies). */
  async insert(entity: E, manager: EntityManager): Promise<void> {
    const record = entity as Record<string, unknown>;
    for (const column of this.columns) {
      if (record[column.propertyName] === undefined) {
        throw new Error(`${this.name}: insert without ${column.propertyName}`);
      }
    }
    await writeBehind(
      manager,
      `${this.name}.insert`,
      this.insertText,
      this.columns.map((c) => transformTo(c, record[c.propertyName])),
    );
  }

  /** Writes every mutable column of `entity` (its primary key names the row). */
  async update(entity: E, manager: EntityManager): Promise<void> {
    await writeBehind(manager, `${this.name}.update`, this.updateText, this.updateValues(entity));
  }

  /**
   * `update`, and in the same statement (one round trip instead of two) another write given as a data-modifying
   * CTE: `with.sql(first)` is its `name AS (…)`, whose own parameters start at `$first` (`$1` is the row's key).
   * `with.name` names that SQL: one text per name, as for every prepared statement.
   */
  async updateWith(entity: E, manager: EntityManager, alongside: StatementPart): Promise<void> {
    const text = `WITH ${alongside.sql(this.mutable.length + 2)} ${this.updateText}`;
    await writeBehind(manager, `${this.name}.update+${alongside.name}`, text, [
      ...this.updateValues(entity),
      ...alongside.values,
    ]);
  }

  private updateValues(entity: E): unknown[] {
    const record = entity as Record<string, unknown>;
    return [
      record[this.primary.propertyName],
      ...this.mutable.map((c) => transformTo(c, record[c.propertyName])),
    ];
  }
}
