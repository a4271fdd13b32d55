import type { LoggedRun } from './log-sink.js';

export const REDACTED = '[redacted]';

/**
 * Every secret value the platform put into this run: its secret variables (a worker's key) and the registry
 * password, plus the `user:password` base64 a Docker config carries. Opened once per run and kept in memory only
 * for the run's life, since redacting needs the values themselves. A value that cannot be opened is not
 * redacted: the run fails at start for the same reason, before printing anything.
 */
export function injectedSecrets(run: LoggedRun): string[] {
  const values: string[] = [];
  try {
    values.push(...Object.values(run.secretEnv.open()));
  } catch {
    // The driver reports the same failure as the run's ERROR.
  }
  if (run.pullSecret) {
    try {
      const password = run.pullSecret.password();
      values.push(password, Buffer.from(`${run.pullSecret.username}:${password}`).toString('base64'));
    } catch {
      // As above: the pull fails.
    }
  }
  return values.filter((value) => value.length > 0);
}

/**
 * Replaces every occurrence of every secret in a line. Longest first, so a secret that contains another is
 * replaced whole rather than leaving its remainder visible.
 */
export function redactor(secrets: readonly string[]): (line: string) => string {
  const sorted = [...new Set(secrets)].sort((a, b) => b.length - a.length);
  if (!sorted.length) return (line) => line;
  return (line) => sorted.reduce((text, secret) => text.split(secret).join(REDACTED), line);
}
