/**
 * One version of a row as Postgres tells it apart from every other: the transaction that wrote it (`xmin`) and where
 * it lies (`ctid`). A row written twice by one transaction keeps its `xmin` but moves, and a row written by another
 * transaction gets that transaction's `xmin`, so a row whose `xmin` and `ctid` both match is the version read.
 * (A `ctid` is reused only once the version it named is dead and vacuumed, which a version read from a committed
 * transaction's `RETURNING` and still current is not.)
 */
export interface RowVersion {
  xmin: string;
  ctid: string;
}

/** The select-list entries that read the version of `alias`'s row; `rowVersionOf` reads them back. */
export function rowVersionColumns(alias: string): string {
  return `${alias}.xmin::text AS "row_xmin", ${alias}.ctid::text AS "row_ctid"`;
}

export function rowVersionOf(row: Record<string, unknown>): RowVersion {
  return { xmin: String(row.row_xmin), ctid: String(row.row_ctid) };
}

/**
 * What a version check raises when the row is no longer the version named (see `EntityStatements.lockVersion`): an
 * integer cast of this text, so that the check needs no function of its own in any schema. The cast is of a value the
 * statement computes (the rows it found), so Postgres cannot fold it while planning, and raises only when it fails.
 */
const STALE_MARKER = 'stale row version';

/** The SQL expression a version check answers: 0 when `found` is 1, else the error naming `what`. */
export function versionCheck(found: string, what: string): string {
  return `CASE WHEN ${found} = 1 THEN 0 ELSE ('${STALE_MARKER} of ' || ${what} || ': ' || ${found})::int END`;
}

/** Whether an error is a version check's: the row changed after the copy the check was for was taken. */
export function isStaleRowVersion(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '22P02' && typeof message === 'string' && message.includes(`"${STALE_MARKER} of `);
}
