import { appendFileSync } from 'node:fs';

/**
 * The verdict of one fault scenario, as `npm run test:faults` (scripts/test-faults.mjs) prints it in its closing
 * table: a name, PASS or FAIL, and the counts the scenario saw (jobs accepted, lost, completed twice, 5xx...).
 *
 *   recordVerdict({ name: 'kill -9 queue-broker', pass: lost === 0 && twice === 0, counts: { accepted, lost, twice } });
 *   expect(lost).toBe(0); // the jest assertion still decides whether the test passes
 *
 * Record the verdict before asserting, so a failing scenario still shows its counts. A scenario may record more
 * than one verdict (one per phase, say); names should be unique within the suite.
 */
export interface Verdict {
  /** Short, unique within the suite: it is the first column of the table. */
  name: string;
  pass: boolean;
  /** What the scenario counted; integers, printed as `key=value` in insertion order. */
  counts: Record<string, number>;
  /**
   * Why a failing scenario failed, a few lines (the first differences, say), printed after the table: the end of a
   * run's output is the part a CI summary keeps. At most DETAIL_LINES lines of DETAIL_CHARS characters are kept.
   */
  detail?: string[];
}

export const DETAIL_LINES = 24;
export const DETAIL_CHARS = 400;

/** The file the runner reads the verdicts from (one JSON object a line), named by the runner. */
export const VERDICTS_FILE_ENV = 'FAULT_VERDICTS_FILE';

/** Appends the verdict as one JSON line to `$FAULT_VERDICTS_FILE`; throws when the variable is not set. */
export function recordVerdict(verdict: Verdict): void {
  const file = process.env[VERDICTS_FILE_ENV];
  if (!file) {
    throw new Error(
      `${VERDICTS_FILE_ENV} is not set: run the fault suite with \`npm run test:faults\` (scripts/test-faults.mjs)`,
    );
  }
  if (typeof verdict.name !== 'string' || verdict.name.trim() === '') {
    throw new Error('recordVerdict: name must be a non-empty string');
  }
  for (const [key, value] of Object.entries(verdict.counts)) {
    if (!Number.isFinite(value)) throw new Error(`recordVerdict(${verdict.name}): count ${key} is ${value}`);
  }
  if (verdict.detail && !verdict.detail.every((l) => typeof l === 'string')) {
    throw new Error(`recordVerdict(${verdict.name}): detail must be lines of text`);
  }
  const detail = verdict.detail?.slice(0, DETAIL_LINES).map((l) => l.slice(0, DETAIL_CHARS));
  const line = JSON.stringify({
    name: verdict.name,
    pass: verdict.pass,
    counts: verdict.counts,
    ...(detail?.length ? { detail } : {}),
    at: new Date().toISOString(),
  });
  // One write(2) of one line with O_APPEND: lines of concurrent writers never interleave.
  appendFileSync(file, `${line}\n`, 'utf8');
}
