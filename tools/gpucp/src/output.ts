/** How results are printed: a table for people, JSON (`--json`) for scripts. */
export interface Output {
  json: boolean;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Rows as aligned columns under a header; `--json` prints the records themselves. */
export function printTable<T>(output: Output, rows: T[], columns: [string, (row: T) => unknown][]): void {
  if (output.json) return printJson(rows);
  const cells = rows.map((row) => columns.map(([, cell]) => format(cell(row))));
  const widths = columns.map(([name], i) => Math.max(name.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(columns.map(([name]) => name))}\n`);
  for (const row of cells) process.stdout.write(`${line(row)}\n`);
}

/** One record as `key: value` lines, or JSON. */
export function printRecord(output: Output, record: object): void {
  if (output.json) return printJson(record);
  for (const [key, value] of Object.entries(record)) process.stdout.write(`${key}: ${format(value)}\n`);
}

/** A line for people (stdout), nothing with `--json` unless there is nothing else to print. */
export function printMessage(output: Output, message: string, value: unknown = { ok: true }): void {
  if (output.json) printJson(value);
  else process.stdout.write(`${message}\n`);
}

function format(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
