// The benchmark's outputs: the table on stdout (and as Markdown for bench/README.md), and the JSON document.
import { execFileSync } from 'node:child_process';
import { cpus, release, totalmem, type } from 'node:os';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { tidy } from './stats.mjs';

const HEADER = ['scenario', 'metric', 'ours median [min–max]', 'baseline median [min–max]', 'ours/baseline'];

function cell({ median, min, max }) {
  return `${format(median)} [${format(min)}–${format(max)}]`;
}

function format(value) {
  if (!Number.isFinite(value)) return String(value);
  return tidy(value).toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** One row per comparison. */
export function tableRows(scenarios) {
  return scenarios.flatMap((scenario) =>
    scenario.comparisons.map((c) => [
      scenario.title,
      `${c.label} (${c.unit}, ${c.better === 'lower' ? '↓' : '↑'} better)`,
      cell(c.ours),
      cell(c.baseline),
      `${format(c.ratio)}`,
    ]),
  );
}

/** Per scenario: what "ours" and "baseline" are in its comparisons, and its notes. */
export function legend(scenarios) {
  const lines = [];
  for (const scenario of scenarios) {
    lines.push(`${scenario.title}:`);
    const seen = new Set();
    for (const c of scenario.comparisons) {
      for (const [role, side] of [
        ['ours', c.ours],
        ['baseline', c.baseline],
      ]) {
        const line = `  ${role.padEnd(8)} ${side.label}`;
        if (seen.has(line)) continue;
        seen.add(line);
        lines.push(line);
      }
    }
    for (const note of scenario.notes) lines.push(`  note: ${note}`);
  }
  return lines;
}

export function printTable(scenarios) {
  const rows = tableRows(scenarios);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells) =>
    cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  console.log('');
  console.log(line(HEADER));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log('');
  for (const text of legend(scenarios)) console.log(text);
}

/** The same table in Markdown (for the README). */
export function markdownTable(scenarios) {
  const rows = tableRows(scenarios);
  return [
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map((_, i) => (i >= 2 ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

function git(args) {
  try {
    return execFileSync('git', args, {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/** What the figures were measured on. */
export function machineInfo() {
  const status = git(['status', '--porcelain']);
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    memoryGb: tidy(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    node: process.version,
    gitCommit: git(['rev-parse', 'HEAD']),
    gitDirty: status === null ? null : status.length > 0,
  };
}
