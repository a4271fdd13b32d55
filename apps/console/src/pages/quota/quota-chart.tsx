import { useEffect, useRef, useState } from 'react';
import { ToggleButton } from 'react-aria-components';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { QuotaSample } from '@app/contracts';

/** One line of the chart: what it shows, its colour (a theme variable) and its dash, so colour is not the only cue. */
interface Line {
  key: 'gpus' | 'inUse' | 'borrowed' | 'lent';
  label: string;
  color: string;
  dash?: number[];
  fill?: boolean;
}

const LINES: Line[] = [
  { key: 'gpus', label: 'Quota', color: '--muted', dash: [8, 4] },
  { key: 'inUse', label: 'In use', color: '--accent', fill: true },
  { key: 'borrowed', label: 'Borrowed', color: '--warn', dash: [2, 3] },
  { key: 'lent', label: 'Lent', color: '--ok', dash: [12, 3, 2, 3] },
];

/** At most this many rows in the table of the data: longer windows show each span's peak. */
const TABLE_ROWS = 96;

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888888';
}

/** The console's theme, followed as it changes, so the canvas (which CSS cannot restyle) is drawn again. */
function useTheme(): string {
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme ?? '');
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(document.documentElement.dataset.theme ?? ''));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

const time = (seconds: number) =>
  new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
const gpus = (n: number) => `${n} GPU${n === 1 ? '' : 's'}`;

/**
 * A tooltip that follows the cursor: the sample's time and each line's value. Built with DOM calls and placed
 * through the CSSOM (`style.transform`), which the console's CSP allows; no markup strings, no style attributes.
 */
function tooltip(): uPlot.Plugin {
  let box: HTMLDivElement;
  return {
    hooks: {
      init: (u) => {
        box = document.createElement('div');
        box.className = 'chart-tooltip';
        box.hidden = true;
        u.over.appendChild(box);
      },
      setCursor: (u) => {
        const { idx, left = 0, top = 0 } = u.cursor;
        if (idx == null || left < 0) {
          box.hidden = true;
          return;
        }
        const lines = [time(u.data[0][idx])];
        LINES.forEach((line, i) => lines.push(`${line.label}: ${gpus(u.data[i + 1][idx] ?? 0)}`));
        box.replaceChildren(
          ...lines.map((text, i) => {
            const row = document.createElement(i === 0 ? 'strong' : 'div');
            row.textContent = text;
            return row;
          }),
        );
        box.hidden = false;
        const flip = left > u.over.clientWidth / 2;
        box.style.transform = `translate(${flip ? left - box.offsetWidth - 12 : left + 12}px, ${top + 12}px)`;
      },
    },
  };
}

/** The chart's series: seconds, then one array per line. */
function seriesOf(samples: QuotaSample[]): uPlot.AlignedData {
  return [
    samples.map((s) => Date.parse(s.at) / 1000),
    ...LINES.map((line) => samples.map((s) => s[line.key])),
  ];
}

/** The samples for the table: all of them, or each span's peak of at most TABLE_ROWS spans. */
function tableRows(samples: QuotaSample[]): QuotaSample[] {
  if (samples.length <= TABLE_ROWS) return samples;
  const span = Math.ceil(samples.length / TABLE_ROWS);
  const rows: QuotaSample[] = [];
  for (let i = 0; i < samples.length; i += span) {
    const part = samples.slice(i, i + span);
    const peak = (key: Line['key']) => Math.max(...part.map((s) => s[key]));
    rows.push({
      ...part[part.length - 1],
      gpus: peak('gpus'),
      inUse: peak('inUse'),
      borrowed: peak('borrowed'),
      lent: peak('lent'),
    });
  }
  return rows;
}

/**
 * Use and borrowing of one limit over time (uPlot on a canvas: docs/adr/0038-console-charts.md). The canvas is
 * hidden from assistive technology; the same data is a table beside it, for screen readers always and on screen
 * when "Show as table" is pressed.
 */
export function QuotaChart({ title, samples }: { title: string; samples: QuotaSample[] }) {
  const holder = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  const [asTable, setAsTable] = useState(false);

  useEffect(() => {
    const el = holder.current;
    if (!el || samples.length === 0) return;
    const [text, grid] = [cssVar('--text'), cssVar('--border')];
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const chart = new uPlot(
      {
        width: el.clientWidth || 600,
        height: 240,
        legend: { show: false },
        cursor: { y: false, drag: { x: false, y: false } },
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] },
        },
        axes: [
          // Samples are a minute apart: no tick finer than a minute.
          {
            ...axis,
            incrs: [60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800],
          },
          { ...axis, label: 'GPUs', labelSize: 20, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] },
        ],
        series: [
          {},
          ...LINES.map((line) => {
            const color = cssVar(line.color);
            return {
              label: line.label,
              stroke: color,
              width: 2,
              dash: line.dash,
              fill: line.fill ? `${color}33` : undefined,
              paths: uPlot.paths.stepped!({ align: 1 }),
              points: { show: false },
            };
          }),
        ],
        plugins: [tooltip()],
      },
      seriesOf(samples),
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: el.clientWidth, height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [samples, theme]);

  const peak = (key: Line['key']) => Math.max(0, ...samples.map((s) => s[key]));
  const first = samples[0];
  const last = samples[samples.length - 1];
  const rows = tableRows(samples);
  return (
    <figure className="quota-chart">
      <figcaption>
        {title}:{' '}
        {samples.length === 0
          ? 'no samples in this window yet'
          : `peak ${gpus(peak('inUse'))} in use, ${gpus(peak('borrowed'))} borrowed, ${gpus(peak('lent'))} lent, ` +
            `from ${time(Date.parse(first.at) / 1000)} to ${time(Date.parse(last.at) / 1000)}`}
      </figcaption>
      {samples.length > 0 && (
        <>
          <ul className="chart-legend" aria-hidden="true">
            {LINES.map((line) => (
              <li key={line.key}>
                <span className={`swatch swatch-${line.key}`} />
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
                {title}, in GPUs
                {rows.length < samples.length
                  ? ` (each row the peak of ${Math.ceil(samples.length / rows.length)} minutes)`
                  : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  {LINES.map((line) => (
                    <th scope="col" key={line.key}>
                      {line.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.at}>
                    <th scope="row">{time(Date.parse(s.at) / 1000)}</th>
                    {LINES.map((line) => (
                      <td key={line.key}>{s[line.key]}</td>
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
