import type uPlot from 'uplot';
import { time } from './chart-data';

/**
 * A tooltip that follows the cursor: the step's time and each line's value. Built with DOM calls and placed
 * through the CSSOM (`style.transform`), which the console's CSP allows; no markup strings, no style attributes.
 */
export function tooltip(labels: string[], format: (value: number) => string): uPlot.Plugin {
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
        labels.forEach((label, i) => {
          const value = u.data[i + 1][idx];
          lines.push(`${label}: ${value == null ? '—' : format(value)}`);
        });
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
