import type { PhaseHistogram } from './rollup-deltas.js';

/**
 * The text forms of the rollup rows (docs/adr/0022-endpoint-metrics.md, "Reading"): histograms are read as text and
 * split here, and the cold start phases' histograms are named once, field and column, for the writes and the reads.
 */

/** The cold start phases' histograms: rollup field and column, in the order they are written. */
export const PHASE_COLUMNS = [
  ['placementHist', 'cold_placement_hist'],
  ['runtimeHist', 'cold_runtime_hist'],
  ['pullHist', 'cold_pull_hist'],
  ['containerHist', 'cold_container_hist'],
  ['readyHist', 'cold_ready_hist'],
] as const satisfies readonly (readonly [PhaseHistogram, string])[];

/** `{1,0,3}` → [1, 0, 3] (non-negative integers), read digit by digit: a week's read splits 500 of them. */
export function intArray(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) value = value * 10 + (c - 48);
    else {
      if (i > 1) out.push(value);
      value = 0;
    }
  }
  return out;
}

/** The phase histograms of a row read as text. */
export function phaseHistograms(row: Record<PhaseHistogram, string>): Record<PhaseHistogram, number[]> {
  const out = {} as Record<PhaseHistogram, number[]>;
  for (const [field] of PHASE_COLUMNS) out[field] = intArray(row[field]);
  return out;
}
