import { useEffect, useState } from 'react';

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];
const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'always', style: 'short' });

/** How long ago `iso` was, in its largest whole unit ("3 min. ago"); under a minute "just now". */
export function ageOf(iso: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  for (const [unit, size] of UNITS) {
    if (seconds >= size) return RELATIVE.format(-Math.floor(seconds / size), unit);
  }
  return 'just now';
}

/** The time now, again every `everyMs`: an age shown stays true while nothing else redraws the page. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * A time as its age; the exact time is the tooltip and, for screen readers (which do not read a title), the
 * text beside it that only they get.
 */
export function Age({ iso }: { iso: string }) {
  const now = useNow(30_000);
  const exact = new Date(iso).toLocaleString();
  return (
    <time dateTime={iso} title={exact}>
      {ageOf(iso, now)}
      <span className="sr-only"> ({exact})</span>
    </time>
  );
}
