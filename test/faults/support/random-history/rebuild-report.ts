import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TableDifference } from '../../../../tools/replay/src/schema-compare.js';
import { ROOT } from '../../../support/paths.js';

const run = promisify(execFile);

/** The parts of `npm run replay -- rebuild --json`'s report (tools/replay/src/rebuild.ts) the history test reads. */
export interface RebuildSummary {
  code: number;
  commands: number;
  notAppliedLive: number;
  firstPass: { applied: number; failed: number; seconds?: number };
  secondPass: { applied: number; failed: number };
  outcomeMismatches: { seq: number; subject: string; live: string; rebuilt: string }[];
  differences: TableDifference[];
  later: { recorded: number; replayed: number; pendingLive: number };
  /** The tool's stderr when the report could not be read. */
  stderr: string;
}

/** Runs the rebuild against the live system (`env`: its bus, database and shared settings) and reads the report. */
export async function runRebuild(env: Record<string, string>): Promise<RebuildSummary> {
  const { stdout, stderr, code } = await run(
    process.execPath,
    [join(ROOT, 'dist/tools/replay/replay.mjs'), 'rebuild', '--json'],
    { env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 256 * 1024 * 1024 },
  ).then(
    (done) => ({ ...done, code: 0 }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  let report: Record<string, unknown>;
  try {
    report = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`the rebuild printed no report (exit ${code}):\n${stderr.slice(-4000)}`);
  }
  const comparison = report.comparison as { differences: TableDifference[] };
  return {
    code,
    commands: report.commands as number,
    notAppliedLive: report.notAppliedLive as number,
    firstPass: report.firstPass as RebuildSummary['firstPass'],
    secondPass: report.secondPass as RebuildSummary['secondPass'],
    outcomeMismatches: report.outcomeMismatches as RebuildSummary['outcomeMismatches'],
    differences: comparison.differences,
    later: report.later as RebuildSummary['later'],
    stderr: code ? stderr.slice(-4000) : '',
  };
}

/** A failing rebuild, readable: the first outcome mismatches and table differences, and how to run it again. */
export function describeRebuild(
  seed: number,
  commands: number,
  replicas: number,
  summary: RebuildSummary,
): string {
  return [
    `seed ${seed} differs: rerun with HISTORY_SEEDS=${seed} HISTORY_REPLICAS=${replicas} HISTORY_COMMANDS=${commands} npm run test:faults -- --testPathPatterns random-history`,
    `commands ${summary.commands}, first pass ${JSON.stringify(summary.firstPass)}, second pass ${JSON.stringify(summary.secondPass)}, exit ${summary.code}`,
    `outcome mismatches (${summary.outcomeMismatches.length}):`,
    ...summary.outcomeMismatches
      .slice(0, 15)
      .map(
        (m) => `  #${m.seq} ${m.subject}: live ${m.live.slice(0, 300)} | rebuilt ${m.rebuilt.slice(0, 300)}`,
      ),
    `table differences (${summary.differences.length}):`,
    ...summary.differences.slice(0, 15).map((d) => `  ${JSON.stringify(d).slice(0, 1200)}`),
    summary.stderr,
  ].join('\n');
}

/** The failing rebuild in a few short lines, for the fault verdict (printed at the end of the suite's output). */
export function rebuildDetail(
  seed: number,
  commands: number,
  replicas: number,
  summary: RebuildSummary,
): string[] {
  const compact = (value: unknown) => JSON.stringify(value)?.slice(0, 160) ?? 'undefined';
  return [
    `rerun: HISTORY_SEEDS=${seed} HISTORY_REPLICAS=${replicas} HISTORY_COMMANDS=${commands} npm run test:faults -- --testPathPatterns random-history`,
    `exit ${summary.code}, second pass applied ${summary.secondPass.applied}${summary.stderr ? `, stderr ${compact(summary.stderr.slice(-300))}` : ''}`,
    ...summary.outcomeMismatches
      .slice(0, 4)
      .map(
        (m) =>
          `outcome #${m.seq} ${m.subject}: live ${m.live.slice(0, 150)} | rebuilt ${m.rebuilt.slice(0, 150)}`,
      ),
    ...summary.differences.slice(0, 6).flatMap((d) => [
      `table ${d.table}: ${d.liveRows} live, ${d.rebuiltRows} rebuilt; only live ${compact(d.onlyLive.slice(0, 2))}; ` +
        `only rebuilt ${compact(d.onlyRebuilt.slice(0, 2))}`,
      ...d.changed.slice(0, 2).map(
        (c) =>
          `  ${c.key}: ${Object.entries(c.columns)
            .map(([column, v]) => `${column} live ${compact(v.live)} rebuilt ${compact(v.rebuilt)}`)
            .join('; ')}`,
      ),
    ]),
  ];
}
