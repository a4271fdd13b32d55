import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { entityFromRow, transformFrom, transformTo, transformedTo } from './entity-columns.js';
import { writeBehind } from './pipelined-transaction.js';
import { preparedQuery, type StatementPart } from './prepared-query.js';

/** One row of `EntityStatements.updateMany`: its primary key, and its columns as written. */
export interface UpdateRow {
  key: unknown;
  row: Record<string, unknown>;
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
  /** The locking reads, with a part's gate (` AND …`) or none (''). */
  private readonly selectLocked: (gate: string) => string;
  private readonly selectManyLocked: (gate: string) => string;
  private readonly updateText: string;
  private readonly insertText: string;
  private readonly insertManyText: string;
  private readonly updateManyText: string;
  private readonly mutable: ColumnMetadata[];
  private readonly name: string;
  /** Texts of the locking reads (with a part alongside or not), by name: one text per prepared statement name. */
  private readonly texts = new Map<string, string>();

  constructor(
    dataSource: DataSource,
    private readonly target: EntityTarget<E>,
    /** Columns `update` never writes besides the key (set once at insert, or too large to rewrite). */
    immutable: (keyof E & string)[],
  ) {
    const metadata = dataSource.getMetadata(target);
    if (metadata.primaryColumns.length !== 1) {
      throw new Error(`${metadata.name}: one primary key column expected`);
    }
    this.primary = metadata.primaryColumns[0];
    this.columns = metadata.columns;
    this.name = metadata.tablePath;
    const table = metadata.schema
      ? `"${metadata.schema}"."${metadata.tableName}"`
      : `"${metadata.tableName}"`;
    const key = `"${this.primary.databaseName}"`;
    const selected = `SELECT ${this.columns.map((c) => `"${c.databaseName}"`).join(', ')} FROM ${table}`;
    this.selectLocked = (gate) => `${selected} WHERE ${key} = $1${gate} FOR UPDATE`;
    // In key order: two transactions locking overlapping sets lock them in the same order, so neither waits on the
    // other for a row it holds.
    this.selectManyLocked = (gate) => `${selected} WHERE ${key} = ANY($1)${gate} ORDER BY ${key} FOR UPDATE`;
    this.insertText =
      `INSERT INTO ${table} (${this.columns.map((c) => `"${c.databaseName}"`).join(', ')}) ` +
      `VALUES (${this.columns.map((_c, i) => `$${i + 1}`).join(', ')})`;
    this.mutable = this.columns.filter(
      (c) => !c.isPrimary && !immutable.includes(c.propertyName as keyof E & string),
    );
    this.updateText =
      `UPDATE ${table} SET ${this.mutable.map((c, i) => `"${c.databaseName}" = $${i + 2}`).join(', ')} ` +
      `WHERE ${key} = $1`;
    // Many rows in one statement: one JSON parameter, an array of rows keyed by column name, which Postgres reads
    // into the table's own row type (so every column gets its own type without a cast per column).
    const rows = `json_populate_recordset(NULL::${table}, $1::json)`;
    this.insertManyText =
      `INSERT INTO ${table} (${this.columns.map((c) => `"${c.databaseName}"`).join(', ')}) ` +
      `SELECT ${this.columns.map((c) => `r."${c.databaseName}"`).join(', ')} FROM ${rows} AS r`;
    // The keys again as an array ($2), so the rows are found by the key's index: Postgres estimates a function's
    // rows at 100 whatever it reads, and would sooner scan a table of a few thousand rows than look up 100 keys.
    const keyType = dataSource.driver.normalizeType(this.primary);
    this.updateManyText =
      `UPDATE ${table} AS t SET ${this.mutable.map((c) => `"${c.databaseName}" = r."${c.databaseName}"`).join(', ')} ` +
      `FROM ${rows} AS r WHERE t.${key} = ANY($2::${keyType}[]) AND t.${key} = r.${key}`;
  }

  /**
   * The row, locked for the rest of the transaction; null when there is none. With `alongside` (as in `updateWith`:
   * a data-modifying CTE, its parameters from `$2`), that write goes in the same statement: before the row is locked
   * when it has a `gate`, after it otherwise.
   */
  async lockById(id: unknown, manager: EntityManager, alongside?: StatementPart): Promise<E | null> {
    const rows = await preparedQuery<Record<string, unknown>>(
      manager,
      ...this.withPart(`${this.name}.lock`, this.selectLocked, [id], alongside),
    );
    return rows.length ? this.entityOf(rows[0], manager) : null;
  }

  /** The rows of `ids` that exist, locked for the rest of the transaction, by primary key; `alongside` as above. */
  async lockByIds(
    ids: readonly unknown[],
    manager: EntityManager,
    alongside?: StatementPart,
  ): Promise<Map<unknown, E>> {
    // Unnamed (planned for each call with its keys): as a named statement, `= ANY($1)` keeps the sequential scan
    // planned while the table was small, as `updateMany` would.
    const [, text, values] = this.withPart(`${this.name}.lock-many`, this.selectManyLocked, [ids], alongside);
    const rows = await preparedQuery<Record<string, unknown>>(manager, undefined, text, values);
    const key = this.primary;
    return new Map(
      rows.map((row) => [transformFrom(key, row[key.databaseName]), this.entityOf(row, manager)]),
    );
  }

  /** A statement's name, text and values, with `alongside` as a CTE before it (its parameters after `values`). */
  private withPart(
    name: string,
    text: (gate: string) => string,
    values: unknown[],
    alongside?: StatementPart,
  ): [string, string, unknown[]] {
    const named = alongside ? `${name}+${alongside.name}` : name;
    let withText = this.texts.get(named);
    if (withText === undefined) {
      const gate = alongside?.gate ? ` AND ${alongside.gate}` : '';
      withText = alongside ? `WITH ${alongside.sql(values.length + 1)} ${text(gate)}` : text('');
      this.texts.set(named, withText);
    }
    return [named, withText, alongside ? [...values, ...alongside.values] : values];
  }

  private entityOf(row: Record<string, unknown>, manager: EntityManager): E {
    return entityFromRow(manager.create(this.target), this.columns, row);
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

  /**
   * Inserts the rows in one statement, as `insert` would each (every column; no column default applies). One row
   * goes as `insert`: one prepared statement per shape, each used for what it does best.
   */
  async insertMany(entities: readonly E[], manager: EntityManager): Promise<void> {
    if (entities.length <= 1) {
      if (entities.length) await this.insert(entities[0], manager);
      return;
    }
    const rows = entities.map((entity) => {
      const record = entity as Record<string, unknown>;
      const row: Record<string, unknown> = {};
      for (const column of this.columns) {
        const value = record[column.propertyName];
        if (value === undefined) throw new Error(`${this.name}: insert without ${column.propertyName}`);
        row[column.databaseName] = transformedTo(column, value);
      }
      return row;
    });
    await writeBehind(manager, `${this.name}.insert-many`, this.insertManyText, [JSON.stringify(rows)]);
  }

  /**
   * What `update` writes, as one row of `updateMany`: taken when called, so the entity may change afterwards
   * without changing what is written (as with an `update` sent at that moment).
   */
  updateRow(entity: E): UpdateRow {
    const record = entity as Record<string, unknown>;
    const row: Record<string, unknown> = {};
    for (const column of [this.primary, ...this.mutable]) {
      row[column.databaseName] = transformedTo(column, record[column.propertyName]);
    }
    return { key: record[this.primary.propertyName], row };
  }

  /**
   * Writes rows taken by `updateRow` in one statement, as one `update` each would. Rows of one key must not repeat
   * (one statement writes a row once): keep the last taken. With `alongside`, as in `updateWith`, whose parameters
   * then start at `$3` (`$1` is the rows, `$2` their keys).
   */
  async updateMany(
    rows: readonly UpdateRow[],
    manager: EntityManager,
    alongside?: StatementPart,
  ): Promise<void> {
    if (!rows.length) return;
    if (new Set(rows.map((r) => r.key)).size !== rows.length) {
      throw new Error(`${this.name}: updateMany with a key twice`);
    }
    const values = [
      JSON.stringify(rows.map((r) => r.row)),
      rows.map((r) => r.key),
      ...(alongside?.values ?? []),
    ];
    // Unnamed, so planned for each call with its keys, at the table's size then: a named statement keeps the plan
    // made when the table was small (a hash join over a sequential scan), which costs more with every row the table
    // grows by until an ANALYZE, where the lone `update`'s key lookup is the plan at any size.
    const text = alongside ? `WITH ${alongside.sql(3)} ${this.updateManyText}` : this.updateManyText;
    await writeBehind(manager, undefined, text, values);
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
