import { useEffect, useRef, useState } from 'react';
import { ToggleButton } from 'react-aria-components';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import {
  INTEGER_INCRS,
  TIME_INCRS,
  isolated,
  peak,
  plain,
  plotData,
  tableRows,
  tickLabels,
  time,
  type ChartUnit,
  type Point,
} from './chart-data';
import { LINE_LOOKS, LOOK_ORDER, cssVar, useTheme, type LineLook } from './chart-theme';
import { tooltip } from './chart-tooltip';

export type { ChartUnit, Point } from './chart-data';
export { durationUnit } from './chart-data';

/** One line (or the bars) of a chart: its name, its values step by step, its look (a colour and a dash). */
export interface ChartLine {
  label: string;
  values: Point[];
  look?: LineLook;
  /** Shade the area under the line (one line of a chart at most, the main one). */
  fill?: boolean;
}

export interface TimeSeriesChartProps {
  /** What the chart shows; the figure's caption starts with it and the table's caption is it. */
  title: string;
  /** Start of each step (epoch seconds), ascending. */
  times: number[];
  lines: ChartLine[];
  unit: ChartUnit;
  /** The data's step (s): no time tick finer than it. */
  stepSeconds: number;
  /** `line` joins the steps; `step` holds each value over its step (a gauge); `bars` draws one bar a step. */
  shape?: 'line' | 'step' | 'bars';
  /** The time axis' extent (epoch seconds) when it is not the data's: the range a page asked for. */
  span?: [number, number];
  /** The caption after the title; by default each line's peak and the time range. */
  summary?: string;
  /** A class for the figure, for pages that style or find one chart. */
  className?: string;
}

const HEIGHT = 220;
/** At most this many rows in the table of the data: longer windows show each span's peak. */
const TABLE_ROWS = 96;

function pathsOf(shape: TimeSeriesChartProps['shape']): uPlot.Series.PathBuilder | undefined {
  if (shape === 'step') return uPlot.paths.stepped!({ align: 1 });
  if (shape === 'bars') return uPlot.paths.bars!({ size: [0.7, 48], align: 1 });
  return undefined;
}

/**
 * A time-series chart (uPlot on a canvas: docs/adr/0038-console-charts.md): a time axis, the unit on the y axis,
 * a tooltip, our own legend (lines differ by dash as well as colour). The canvas is hidden from assistive
 * technology; the caption says what it shows in words and the same data is a table beside it, for screen readers
 * always and on screen when "Show as table" is pressed.
 */
export function TimeSeriesChart({
  title,
  times,
  lines,
  unit,
  stepSeconds,
  shape = 'line',
  summary,
  className,
  span,
}: TimeSeriesChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  const [asTable, setAsTable] = useState(false);
  const looks = lines.map((line, i) => line.look ?? LOOK_ORDER[i % LOOK_ORDER.length]);
  // The chart is drawn again only when what it shows changes, not on every render of the page around it.
  const key = JSON.stringify([times, lines, looks, unit.label, shape, stepSeconds, span]);

  useEffect(() => {
    const el = holder.current;
    if (!el || times.length === 0) return;
    const [text, grid] = [cssVar('--text'), cssVar('--border')];
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const paths = pathsOf(shape);
    const chart = new uPlot(
      {
        width: el.clientWidth || 600,
        height: HEIGHT,
        legend: { show: false },
        cursor: { y: false, drag: { x: false, y: false } },
        scales: {
          // A bar covers its step: the axis runs to the end of the last one.
          x: {
            time: true,
            range: span
              ? () => span
              : shape === 'bars'
                ? (_u, min, max) => [min, max + stepSeconds]
                : undefined,
          },
          y: {
            range: (_u, _min, max) => [
              0,
              unit.integer ? Math.max(1, Math.ceil(max * 1.1)) : max > 0 ? max * 1.1 : 1,
            ],
          },
        },
        axes: [
          { ...axis, incrs: TIME_INCRS.filter((s) => s >= stepSeconds) },
          {
            ...axis,
            label: unit.label,
            labelSize: 20,
            size: 60,
            incrs: unit.integer ? INTEGER_INCRS : undefined,
            values: (_u: uPlot, splits: number[], _i: number, _space: number, incr: number) =>
              tickLabels(splits, incr),
          },
        ],
        series: [
          {},
          ...lines.map((line, i) => {
            const look = LINE_LOOKS[looks[i]];
            const color = cssVar(look.color);
            return {
              label: line.label,
              stroke: color,
              width: 2,
              dash: shape === 'bars' ? undefined : look.dash,
              fill: line.fill || shape === 'bars' ? `${color}${shape === 'bars' ? 'cc' : '33'}` : undefined,
              paths,
              // A value alone between gaps (one step with jobs) is a point: no line can join it.
              points: { show: shape !== 'bars', size: 6, fill: color, filter: isolated(line.values) },
            };
          }),
        ],
        plugins: [
          tooltip(
            lines.map((l) => l.label),
            unit.format,
          ),
        ],
      },
      plotData(
        times,
        lines.map((l) => l.values),
        stepSeconds,
        shape === 'step',
      ) as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth, height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
    // `key` stands for times, lines, looks, unit and shape (new arrays on every poll would redraw for nothing).
  }, [key, theme]);

  const { span: merged, rows } = tableRows(
    times,
    lines.map((l) => l.values),
    TABLE_ROWS,
  );
  const defaultSummary = () =>
    `${lines.map((l) => `${l.label} peak ${unit.format(peak(l.values))}`).join(', ')}, ` +
    `from ${time(times[0])} to ${time(times[times.length - 1] + stepSeconds)}`;
  return (
    <figure className={`time-chart ${className ?? ''}`}>
      <figcaption>
        {title}: {times.length === 0 ? 'no samples in this window yet' : (summary ?? defaultSummary())}
      </figcaption>
      {times.length > 0 && (
        <>
          <ul className="chart-legend" aria-hidden="true">
            {lines.map((line, i) => (
              <li key={line.label}>
                <span className={`swatch swatch-${shape === 'bars' ? 'bar' : looks[i]}`} />
                {line.label}
              </li>
            ))}
          </ul>
          <div ref={holder} className="chart-canvas" aria-hidden="true" />
          <ToggleButton className="secondary small" isSelected={asTable} onChange={setAsTable}>
            Show as table
          </ToggleButton>
          <div className={asTable ? 'chart-table' : 'sr-only'}>
            <table>
              <caption>
                {title}, in {unit.label}
                {merged > 1 ? ` (each row the peak of ${stepLabel(merged * stepSeconds)})` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  {lines.map((line) => (
                    <th scope="col" key={line.label}>
                      {line.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.t}>
                    <th scope="row">{time(row.t)}</th>
                    {row.values.map((v, i) => (
                      <td key={lines[i].label}>{plain(v)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </figure>
  );
}

function stepLabel(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? 'a day' : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? 'an hour' : `${seconds / 3600} hours`;
  return seconds === 60 ? 'a minute' : `${Math.round(seconds / 60)} minutes`;
}
