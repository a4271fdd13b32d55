import type { RebuildReport } from './rebuild.js';
import { EXCLUSIONS } from './rebuild-scope.js';
import type { ReplaySummary } from './replayer.js';

/** What the replay CLI prints: a line on stdout. */
export const out = (line = '') => process.stdout.write(`${line}\n`);

/** A replay's summary: JSON, or a line (and one per failure). */
export function printSummary(summary: ReplaySummary, dryRun: boolean, json: boolean): void {
  if (json) {
    const { outcomes: _outcomes, ...rest } = summary;
    out(JSON.stringify({ dryRun, ...rest }));
    return;
  }
  if (dryRun) {
    out(
      `dry run: ${summary.selected} selected, ${summary.wouldApply} would be applied, ${summary.skipped} already applied`,
    );
    return;
  }
  out(
    `replayed ${summary.selected}: ${summary.applied} applied, ${summary.skipped} skipped (already applied), ${summary.failed} failed` +
      ` in ${summary.seconds.toFixed(1)} s (${summary.rate} commands/s)`,
  );
  for (const f of summary.failures) out(`  failed #${f.seq} ${f.subject} ${f.commandId}: ${f.reason}`);
}

export function rebuildDiffers(report: RebuildReport): boolean {
  return (
    report.comparison.differences.length > 0 ||
    report.outcomeMismatches.length > 0 ||
    report.secondPass.applied > 0 ||
    report.secondPass.failed > 0
  );
}

export function printRebuild(report: RebuildReport, json: boolean): void {
  if (json) {
    out(JSON.stringify(report));
    return;
  }
  const { firstPass: a, secondPass: b, comparison } = report;
  out(
    `rebuild of ${report.commands} commands into ${report.database} (prefix ${report.prefix}); apps ready in ${report.startupSeconds.toFixed(1)} s`,
  );
  out(
    `  first pass:  ${a.applied} applied, ${a.failed} answered with an error, ${a.skipped} skipped (applied by a command before them)` +
      ` in ${a.seconds.toFixed(1)} s (${a.rate} commands/s)`,
  );
  out(
    `  second pass: ${b.applied} applied, ${b.skipped} skipped, ${b.failed} failed in ${b.seconds.toFixed(1)} s (${b.rate} commands/s)`,
  );
  out(`  outcomes differing from the live ones: ${report.outcomeMismatches.length}`);
  for (const m of report.outcomeMismatches.slice(0, 10)) {
    out(`    #${m.seq} ${m.subject} ${m.commandId}: live ${m.live} / rebuilt ${m.rebuilt}`);
  }
  if (report.notAppliedLive) {
    out(`  ${report.notAppliedLive} command(s) were never applied live (replayed here anyway)`);
  }
  const { later } = report;
  if (later.recorded) {
    out(
      `  recorded live during the rebuild: ${later.recorded} command(s); ${later.replayed} applied live by the snapshot ` +
        `compared with, replayed too (${later.applied} applied, ${later.failed} answered with an error); ` +
        `${later.pendingLive} not applied live yet, left out on both sides` +
        (later.comparisons > 1 ? `; compared ${later.comparisons} times` : ''),
    );
  }
  const rows = comparison.tables.map((t) => [
    t.table,
    t.skipped ? '-' : String(t.rows),
    t.skipped ? 'not compared' : t.identical ? 'identical' : 'DIFFERENT',
  ]);
  table(['TABLE', 'ROWS', 'RESULT'], rows);
  for (const d of comparison.differences) {
    out(`${d.table}: live ${d.liveRows} rows, rebuilt ${d.rebuiltRows}`);
    if (d.onlyLive.length) {
      out(`  only live: ${d.onlyLive.slice(0, 10).join(', ')}${d.onlyLive.length > 10 ? ', ...' : ''}`);
    }
    if (d.onlyRebuilt.length) {
      out(
        `  only rebuilt: ${d.onlyRebuilt.slice(0, 10).join(', ')}${d.onlyRebuilt.length > 10 ? ', ...' : ''}`,
      );
    }
    for (const c of d.changed) out(`  ${c.key}: ${JSON.stringify(c.columns)}`);
  }
  out('left out of the comparison:');
  for (const e of EXCLUSIONS) out(`  ${e.table}${e.columns ? ` (${e.columns.join(', ')})` : ''}: ${e.why}`);
  out(
    rebuildDiffers(report)
      ? 'RESULT: the rebuild DIFFERS from the live database'
      : later.recorded
        ? `RESULT: no differences (identical, with ${later.replayed} command(s) recorded during the rebuild replayed too)`
        : 'RESULT: no differences',
  );
}

export function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  out(line(header));
  for (const row of rows) out(line(row));
}
