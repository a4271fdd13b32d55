/** Keys whose values are secrets (sealed or not) wherever they appear in a payload. */
const SECRET_KEY = /pass(word)?|secret|token|sealed|credential|private|api[-_]?key|^key$|auth(orization)?$/i;

export const REDACTED = '[redacted]';

/**
 * A copy of a command payload fit to print: values under secret-looking keys are replaced, and so is every value
 * of an `env` map (containers' environments routinely carry credentials under any name); the keys stay visible.
 */
export function redact(value: unknown, key = ''): unknown {
  if (SECRET_KEY.test(key) && value !== null && value !== undefined && value !== '') return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redact(item));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (/^env$/i.test(key)) return Object.fromEntries(entries.map(([k]) => [k, REDACTED]));
    return Object.fromEntries(entries.map(([k, v]) => [k, redact(v, k)]));
  }
  return value;
}
