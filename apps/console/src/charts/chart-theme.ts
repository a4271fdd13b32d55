import { useEffect, useState } from 'react';

/**
 * The looks a line can take: a theme colour and a dash pattern, so colour is never the only cue. The legend's
 * swatch is a CSS class of the same name (styles.css: no style attributes under the CSP).
 */
export const LINE_LOOKS = {
  accent: { color: '--accent', dash: undefined },
  muted: { color: '--muted', dash: [8, 4] },
  warn: { color: '--warn', dash: [2, 3] },
  ok: { color: '--ok', dash: [12, 3, 2, 3] },
  danger: { color: '--danger', dash: [5, 5] },
} as const satisfies Record<string, { color: string; dash: number[] | undefined }>;
export type LineLook = keyof typeof LINE_LOOKS;

/** The order lines take their looks in when a chart does not name them. */
export const LOOK_ORDER: LineLook[] = ['accent', 'warn', 'ok', 'muted', 'danger'];

export function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888888';
}

/** The console's theme, followed as it changes, so the canvas (which CSS cannot restyle) is drawn again. */
export function useTheme(): string {
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme ?? '');
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(document.documentElement.dataset.theme ?? ''));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}
