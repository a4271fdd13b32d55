import { describe, expect, it } from '@jest/globals';
import {
  bucketLowerMs,
  bucketOf,
  bucketUpperMs,
  histogramQuantile,
  mergeHistograms,
  observe,
  summarize,
} from './latency-histogram.js';

describe('latency histograms', () => {
  it('puts a latency in the bucket whose bounds hold it', () => {
    for (const ms of [0, 0.5, 1, 1.01, 7, 100, 999, 1000, 1024, 60_000, 3_600_000]) {
      const i = bucketOf(ms);
      expect(ms).toBeLessThanOrEqual(bucketUpperMs(i) + 1e-9);
      if (i > 0) expect(ms).toBeGreaterThan(bucketLowerMs(i));
    }
    expect(bucketOf(1024)).toBe(40);
    expect(bucketOf(1e12)).toBe(120);
  });

  it('merges histograms of different lengths', () => {
    expect(mergeHistograms([[1, 2], [0, 1, 3], null])).toEqual([1, 3, 3]);
  });

  it('estimates percentiles within one bucket of the exact nearest-rank value', () => {
    const samples = Array.from({ length: 20 }, (_, i) => 100 + i * 97);
    const hist: number[] = [];
    for (const s of samples) observe(hist, s);
    const sorted = [...samples].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1];
      const estimate = histogramQuantile(hist, q)!;
      const i = bucketOf(exact);
      expect(estimate).toBeGreaterThanOrEqual(Math.floor(bucketLowerMs(i)));
      expect(estimate).toBeLessThanOrEqual(Math.ceil(bucketUpperMs(i)));
    }
  });

  it('summarizes in one walk what histogramQuantile reads one percentile at a time', () => {
    for (const hist of [
      [5],
      [0, 0, 3, 0, 1],
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 99],
      [0, 100, 0, 0, 1, 2, 3],
    ]) {
      expect(summarize(hist)).toEqual({
        count: hist.reduce((a, b) => a + b, 0),
        p50: histogramQuantile(hist, 0.5),
        p90: histogramQuantile(hist, 0.9),
        p99: histogramQuantile(hist, 0.99),
      });
    }
  });

  it('summarizes an empty histogram as nulls', () => {
    expect(summarize([])).toEqual({ count: 0, p50: null, p90: null, p99: null });
  });
});
