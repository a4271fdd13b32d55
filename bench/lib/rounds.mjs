// Runs one scenario: setup, one unrecorded warm-up round, then `rounds` rounds in each of which every side
// (ours, the baseline, sometimes more) is measured once, always in the same order: A, B, A, B, ... so drift and
// other load on the machine hit both alike. Each side's run returns that round's value of each metric; the
// comparisons then pair a metric of "ours" with one of the baseline: median [min–max] over the rounds, and the
// ratio of the medians.
import { log, paint } from '../../scripts/lib/infra.mjs';
import { spread, tidy } from './stats.mjs';

/**
 * A slow scenario's rounds: `n` (at most the run's) in a --quick run that did not ask for a number of rounds, which
 * keeps --quick within issue 13's three minutes; the run's rounds otherwise.
 */
export function quickRounds(ctx, n) {
  return ctx.quick && !ctx.roundsGiven ? Math.min(ctx.rounds, n) : ctx.rounds;
}

/**
 * A scenario module's default export:
 *   id, title                       names in the table and the JSON
 *   sides: { [name]: { label, run(state, { round, warmup }) → { [metric]: number } } }, measured in this order
 *   comparisons: [{ label, unit, better: 'lower' | 'higher', ours: [side, metric], baseline: [side, metric],
 *                   oursLabel?, baselineLabel? }]   (the labels default to the sides' labels)
 *   setup(ctx) → state, teardown(state)   optional
 *   warmup: false                    optional: no warm-up round (or on a side: no warm-up of that side)
 *   notes(state, raw) → string[]     optional: what to know when reading the figures
 *   rounds(ctx) → number             optional: this scenario's rounds, when not the run's (`ctx.rounds`)
 */
export async function runScenario(scenario, ctx) {
  const rounds = scenario.rounds?.(ctx) ?? ctx.rounds;
  const started = performance.now();
  console.log(paint(`==> ${scenario.title}`, 'bold'));
  const state = (await scenario.setup?.(ctx)) ?? {};
  const sideNames = Object.keys(scenario.sides);
  const raw = Object.fromEntries(sideNames.map((name) => [name, {}]));
  try {
    if (scenario.warmup !== false) {
      for (const name of sideNames) {
        if (scenario.sides[name].warmup === false) continue;
        await scenario.sides[name].run(state, { round: -1, warmup: true });
      }
    }
    for (let round = 0; round < rounds; round++) {
      const parts = [];
      for (const name of sideNames) {
        const values = await scenario.sides[name].run(state, { round, warmup: false });
        for (const [metric, value] of Object.entries(values)) {
          (raw[name][metric] ??= []).push(value);
        }
        parts.push(
          `${name} ${Object.entries(values)
            .map(([metric, value]) => `${metric}=${tidy(value)}`)
            .join(' ')}`,
        );
      }
      log(`round ${round + 1}/${rounds}: ${parts.join(' | ')}`);
    }
  } finally {
    await scenario.teardown?.(state);
  }
  const comparisons = scenario.comparisons.map((comparison) => {
    const [oursSide, oursMetric] = comparison.ours;
    const [baseSide, baseMetric] = comparison.baseline;
    const ours = spread(raw[oursSide][oursMetric] ?? []);
    const baseline = spread(raw[baseSide][baseMetric] ?? []);
    return {
      label: comparison.label,
      unit: comparison.unit,
      better: comparison.better,
      ours: {
        side: oursSide,
        metric: oursMetric,
        label: comparison.oursLabel ?? scenario.sides[oursSide].label,
        ...tidySpread(ours),
      },
      baseline: {
        side: baseSide,
        metric: baseMetric,
        label: comparison.baselineLabel ?? scenario.sides[baseSide].label,
        ...tidySpread(baseline),
      },
      ratio: tidy(ours.median / baseline.median),
    };
  });
  const seconds = (performance.now() - started) / 1000;
  log(`${scenario.id}: ${seconds.toFixed(1)} s`);
  return {
    id: scenario.id,
    title: scenario.title,
    seconds: tidy(seconds),
    rounds,
    settings: state.settings ?? {},
    sides: Object.fromEntries(sideNames.map((name) => [name, scenario.sides[name].label])),
    notes: scenario.notes?.(state, raw) ?? [],
    comparisons,
    raw: Object.fromEntries(
      Object.entries(raw).map(([side, metrics]) => [
        side,
        Object.fromEntries(Object.entries(metrics).map(([metric, values]) => [metric, values.map(tidy)])),
      ]),
    ),
  };
}

function tidySpread(s) {
  return { median: tidy(s.median), min: tidy(s.min), max: tidy(s.max) };
}
