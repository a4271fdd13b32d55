// The scale family's outputs: per figure and size, ours and the baseline (median [min–max] over the rounds) and
// their ratio; per figure, the growth of ours and of the ratio from one size to the next; the targets checked.
import { spread, tidy } from '../lib/stats.mjs';
import { TARGETS } from './targets.mjs';

const fmt = (value) =>
  Number.isFinite(value) ? tidy(value).toLocaleString('en-US', { maximumFractionDigits: 3 }) : '–';
const cell = (s) => (s.min === s.max ? fmt(s.median) : `${fmt(s.median)} [${fmt(s.min)}–${fmt(s.max)}]`);

/** Figures of every size, joined by id: `[{ id, label, unit, better, bySize: { S: {...}, M, L } }]`. */
export function joinFigures(sizes) {
  const byId = new Map();
  for (const { size, figures } of sizes) {
    for (const figure of figures) {
      const ours = spread(figure.ours);
      const baseline = spread(figure.baseline);
      const row = byId.get(figure.id) ?? { ...figure, ours: undefined, baseline: undefined, bySize: {} };
      row.bySize[size.name] = {
        ours: tidySpread(ours),
        baseline: tidySpread(baseline),
        ratio: tidy(ours.median / baseline.median),
        raw: { ours: figure.ours.map(tidy), baseline: figure.baseline.map(tidy) },
        notes: figure.notes ?? [],
      };
      byId.set(figure.id, row);
    }
  }
  return [...byId.values()].map((row) => ({ ...row, growth: growthOf(row.bySize) }));
}

function tidySpread(s) {
  return { median: tidy(s.median), min: tidy(s.min), max: tidy(s.max), rounds: s.rounds };
}

/** Ours' and the ratio's growth between consecutive sizes present (M/S, L/M). */
function growthOf(bySize) {
  const names = Object.keys(bySize);
  const growth = {};
  for (let i = 1; i < names.length; i++) {
    const [a, b] = [bySize[names[i - 1]], bySize[names[i]]];
    growth[`${names[i]}/${names[i - 1]}`] = {
      ours: tidy(b.ours.median / a.ours.median),
      ratio: tidy(b.ratio / a.ratio),
    };
  }
  return growth;
}

/** Each target with the value read and whether the must and the aim are met. */
export function checkTargets(rows, { quick = false } = {}) {
  return TARGETS.map((target) => {
    if (quick && target.full) return { ...target, value: NaN, met: null, aimed: null, quick: true };
    const row = rows.find((r) => r.id === target.figure);
    const at = row?.bySize[target.size];
    let value = NaN;
    if (at && target.on === 'ours') value = at.ours.median;
    if (at && target.on === 'ratio') value = at.ratio;
    if (at && target.on === 'growth' && row.bySize[target.from]) {
      value = tidy(at.ours.median / row.bySize[target.from].ours.median);
    }
    const meets = (limit) => (target.better === 'lower' ? value <= limit : value >= limit);
    const measured = Number.isFinite(value);
    return {
      ...target,
      value,
      must: target.must,
      met: measured ? meets(target.must) : null,
      aimed: measured ? meets(target.aim) : null,
    };
  });
}

/** Markdown: the figures by size, the growth table, the targets. */
export function markdown(rows, targets, sizeNames) {
  const lines = [
    `| figure | ${sizeNames.map((n) => `${n}: ours · baseline · ratio`).join(' | ')} |`,
    `|---|${sizeNames.map(() => '---:').join('|')}|`,
  ];
  for (const row of rows) {
    const cells = sizeNames.map((n) => {
      const at = row.bySize[n];
      return at ? `${cell(at.ours)} · ${cell(at.baseline)} · ${fmt(at.ratio)}` : '–';
    });
    lines.push(
      `| ${row.label} (${row.unit}, ${row.better === 'lower' ? '↓' : '↑'}) | ${cells.join(' | ')} |`,
    );
  }
  const steps = rows.length ? Object.keys(rows[0].growth) : [];
  if (steps.length) {
    lines.push(
      '',
      `| growth of ours (ratio's growth) | ${steps.join(' | ')} |`,
      `|---|${steps.map(() => '---:').join('|')}|`,
    );
    for (const row of rows) {
      const cells = steps.map((s) =>
        row.growth[s] ? `${fmt(row.growth[s].ours)} (${fmt(row.growth[s].ratio)})` : '–',
      );
      lines.push(`| ${row.label} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('', '| target | read | must | aim | verdict |', '|---|---:|---:|---:|---|');
  for (const t of targets) {
    const verdict = t.quick
      ? 'read in a full run only'
      : t.met === null
        ? 'not measured'
        : t.met
          ? t.aimed
            ? 'must and aim met'
            : 'must met'
          : 'MISSED';
    lines.push(`| ${t.label} | ${fmt(t.value)} | ${fmt(t.must)} | ${fmt(t.aim)} | ${verdict} |`);
  }
  return lines.join('\n');
}

/** What ours and the baseline of each figure are, and the notes of each size. */
export function legend(rows) {
  const lines = [];
  for (const row of rows) {
    lines.push(
      `${row.label} [${row.id}]`,
      `  ours      ${row.oursLabel}`,
      `  baseline  ${row.baselineLabel}`,
    );
    for (const [name, at] of Object.entries(row.bySize)) {
      for (const note of at.notes) lines.push(`  ${name}: ${note}`);
    }
  }
  return lines;
}
