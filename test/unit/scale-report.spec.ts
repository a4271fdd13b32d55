import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../support/paths.js';

interface Figure {
  id: string;
  label: string;
  unit: string;
  better: 'lower' | 'higher';
  ours: number[];
  baseline: number[];
  oursLabel: string;
  baselineLabel: string;
}
interface Row {
  id: string;
  bySize: Record<string, { ours: { median: number }; baseline: { median: number }; ratio: number }>;
  growth: Record<string, { ours: number; ratio: number }>;
}
interface Target {
  figure: string;
  value: number;
  met: boolean | null;
  aimed: boolean | null;
}
const report = (await import(pathToFileURL(join(ROOT, 'bench', 'scale', 'report.mjs')).href)) as {
  joinFigures: (sizes: { size: { name: string }; figures: Figure[] }[]) => Row[];
  checkTargets: (rows: Row[], options?: { quick: boolean }) => Target[];
  markdown: (rows: Row[], targets: Target[], sizeNames: string[]) => string;
};
const { sizesFor } = (await import(pathToFileURL(join(ROOT, 'bench', 'scale', 'sizes.mjs')).href)) as {
  sizesFor: (o: {
    quick: boolean;
    only?: string[];
  }) => { name: string; hosts: number; auditEntries: number }[];
};

const figure = (id: string, ours: number[], baseline: number[]): Figure => ({
  id,
  label: id,
  unit: 'ms',
  better: 'lower',
  ours,
  baseline,
  oursLabel: 'ours',
  baselineLabel: 'baseline',
});

// The scale family's report (bench/scale/report.mjs): figures joined over sizes, growth, issue 56's targets.
describe('the scale report', () => {
  const rows = report.joinFigures([
    { size: { name: 'S' }, figures: [figure('placement.p99', [10, 12, 11], [5, 5, 6])] },
    { size: { name: 'M' }, figures: [figure('placement.p99', [20, 22, 21], [5, 5, 5])] },
    { size: { name: 'L' }, figures: [figure('placement.p99', [30, 29, 31], [10, 10, 10])] },
  ]);

  it('takes the median of each side per size and their ratio', () => {
    expect(rows).toHaveLength(1);
    expect(rows[0].bySize.M).toMatchObject({ ours: { median: 21 }, baseline: { median: 5 }, ratio: 4.2 });
  });

  it('reports the growth of ours and of the ratio from one size to the next', () => {
    expect(rows[0].growth['M/S']).toEqual({ ours: 1.91, ratio: 1.91 });
    expect(rows[0].growth['L/M']).toEqual({ ours: 1.43, ratio: 0.714 });
  });

  it('reads each target off its figure and size: a ratio, a growth, or not measured', () => {
    const targets = report.checkTargets(rows);
    const ratio = targets.find((t) => t.figure === 'placement.p99' && t.value === 3);
    expect(ratio).toMatchObject({ met: true, aimed: false });
    const growth = targets.find((t) => t.figure === 'placement.p99' && t.value !== 3);
    expect(growth).toMatchObject({ value: 1.43, met: true, aimed: false });
    expect(targets.find((t) => t.figure === 'admission.total-s')).toMatchObject({ met: null });
    expect(report.markdown(rows, targets, ['S', 'M', 'L'])).toContain('| 30 [29–31] · 10 · 3 |');
  });

  it('checks the admissions target in a full run only (--quick sends 150, not 15,000)', () => {
    const rows = report.joinFigures([
      { size: { name: 'L' }, figures: [figure('admission.total-s', [200], [150])] },
    ]);
    const read = (quick: boolean) =>
      report.checkTargets(rows, { quick }).find((t) => t.figure === 'admission.total-s');
    expect(read(false)).toMatchObject({ value: 200, met: true, aimed: false });
    expect(read(true)).toMatchObject({ met: null });
    expect(report.markdown(rows, report.checkTargets(rows, { quick: true }), ['L'])).toContain(
      '| 15,000 admissions of 50 teams, total (s) | – | 425 | 120 | read in a full run only |',
    );
  });

  it('keeps the fleets under --quick and shrinks the audit trail', () => {
    const full = sizesFor({ quick: false });
    const quick = sizesFor({ quick: true, only: ['L'] });
    expect(full.map((s) => s.hosts)).toEqual([100, 1_000, 10_000]);
    expect(quick).toEqual([expect.objectContaining({ name: 'L', hosts: 10_000, auditEntries: 500_000 })]);
    expect(full[2].auditEntries).toBe(10_000_000);
  });
});
