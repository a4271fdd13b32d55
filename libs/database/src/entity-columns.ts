// How an entity's columns go to and come from the rows of statements written by hand, through the same transformers
// and json handling as TypeORM's own (entity-statements.ts, and the joins some repositories write).
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';

export function transformFrom(column: ColumnMetadata, value: unknown): unknown {
  const transformer = column.transformer;
  if (!transformer) return value;
  return Array.isArray(transformer)
    ? transformer.reduceRight((v, t) => t.from(v) as unknown, value)
    : (transformer.from(value) as unknown);
}

/** The column's value as its transformer writes it (json columns still a JS value). */
export function transformedTo(column: ColumnMetadata, value: unknown): unknown {
  const transformer = column.transformer;
  if (!transformer) return value;
  return Array.isArray(transformer)
    ? transformer.reduce((v, t) => t.to(v) as unknown, value)
    : (transformer.to(value) as unknown);
}

export function transformTo(column: ColumnMetadata, value: unknown): unknown {
  const out = transformedTo(column, value);
  // pg would write a JS array as a Postgres array literal: json columns get their JSON text.
  if ((column.type === 'jsonb' || column.type === 'json') && out !== null && out !== undefined) {
    return JSON.stringify(out);
  }
  return out;
}

/**
 * An entity's columns for a statement that reads it alongside others (a join): `select` lists them as
 * `<alias>."<column>" AS "<prefix><column>"`, and `from` builds the entity back from such a row, through the same
 * transformers TypeORM would apply, or null when the row has none of it (an outer join's missing side).
 */
export interface JoinedEntity<E> {
  select: string;
  from(row: Record<string, unknown>): E | null;
}

export function joinedEntity<E extends ObjectLiteral>(
  dataSource: DataSource,
  target: EntityTarget<E>,
  alias: string,
  prefix: string,
): JoinedEntity<E> {
  const metadata = dataSource.getMetadata(target);
  const columns = metadata.columns;
  const key = `${prefix}${metadata.primaryColumns[0].databaseName}`;
  return {
    select: columns.map((c) => `${alias}."${c.databaseName}" AS "${prefix}${c.databaseName}"`).join(', '),
    from: (row) => (row[key] == null ? null : entityFromRow<E>(metadata.create() as E, columns, row, prefix)),
  };
}

/** `entity` with every column read from `row` (named `<prefix><column>`), through the columns' transformers. */
export function entityFromRow<E>(
  entity: E,
  columns: ColumnMetadata[],
  row: Record<string, unknown>,
  prefix = '',
): E {
  const record = entity as Record<string, unknown>;
  for (const column of columns) {
    record[column.propertyName] = transformFrom(column, row[`${prefix}${column.databaseName}`]);
  }
  return entity;
}
