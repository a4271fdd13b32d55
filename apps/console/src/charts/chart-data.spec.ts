import { describe, expect, it } from '@jest/globals';
import { durationUnit, isolated, peak, plain, plotData, tableRows, tickLabels } from './chart-data';

describe('the time-series chart data', () => {
  it('keeps every step in the table up to its limit, then each span peak at the span start', () => {
    const times = [0, 60, 120, 180, 240];
    expect(tableRows(times, [[1, 2, 3, 4, 5]], 5)).toEqual({
      span: 1,
      rows: times.map((t, i) => ({ t, values: [i + 1] })),
    });
    expect(tableRows(times, [[1, 4, null, null, 2]], 2)).toEqual({
      span: 3,
      rows: [
        { t: 0, values: [4] },
        { t: 180, values: [2] },
      ],
    });
    // A span without any value stays empty, not 0.
    expect(tableRows([0, 60], [[null, null]], 1).rows).toEqual([{ t: 0, values: [null] }]);
  });

  it('marks the values a line cannot join: those between gaps', () => {
    expect(isolated([null, 5, null, 1, 2, null, 3])).toEqual([1, 6]);
    expect(isolated([7])).toEqual([0]);
    expect(isolated([])).toEqual([]);
  });

  it('gives a stepped line an end point so its last step is drawn', () => {
    expect(plotData([0, 60], [[1, 2]], 60, true)).toEqual([
      [0, 60, 120],
      [1, 2, 2],
    ]);
    expect(plotData([0, 60], [[1, 2]], 60, false)).toEqual([
      [0, 60],
      [1, 2],
    ]);
  });

  it('labels ticks with the decimals of their step, so no two read the same', () => {
    expect(tickLabels([0, 0.0005, 0.001, 0.0015], 0.0005)).toEqual(['0.0000', '0.0005', '0.0010', '0.0015']);
    expect(tickLabels([0, 20, 40], 20)).toEqual(['0', '20', '40']);
    expect(tickLabels([0, 0.25, 0.5], 0.25)).toEqual(['0.00', '0.25', '0.50']);
  });

  it('says durations in ms under ten seconds and in s from there', () => {
    const short = durationUnit(9_999);
    expect([short.unit.label, short.unit.format(12.4), short.scale(250)]).toEqual(['ms', '12 ms', 250]);
    const long = durationUnit(10_000);
    expect([long.unit.label, long.unit.format(12.34), long.scale(12_500), long.scale(null)]).toEqual([
      's',
      '12.3 s',
      12.5,
      null,
    ]);
  });

  it('reads peaks over gaps and writes table numbers without a unit', () => {
    expect(peak([null, 3, 1, null])).toBe(3);
    expect(peak([null])).toBe(0);
    expect([plain(null), plain(0.00125), plain(1234.5)]).toEqual(['—', '0.0013', '1,234.5']);
  });
});
