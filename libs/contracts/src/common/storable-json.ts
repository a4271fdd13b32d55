/** A UTF-16 surrogate without its partner: JSON can carry it as an escape, Postgres's jsonb refuses it. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a JSON value cannot be stored in a `jsonb` column, or null when it can. */
export type UnstorableJson = 'U+0000' | 'unpaired surrogate';

/**
 * What in `value` (a parsed JSON value: its strings and its keys) Postgres's `jsonb` refuses: U+0000, and a UTF-16
 * surrogate without its partner (which `JSON.stringify` writes as a `\udXXX` escape). Either fails the insert
 * with an error that is no answer to the caller, so a command carrying one would be retried and dead-lettered
 * rather than refused; checked where such values enter, and by their owner.
 */
export function unstorableJson(value: unknown): UnstorableJson | null {
  // Without recursion: a value parsed from JSON may be nested deeper than the stack allows.
  const stack: unknown[] = [value];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === 'string') {
      const found = unstorableString(item);
      if (found) return found;
    } else if (Array.isArray(item)) {
      for (const element of item) stack.push(element);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        const found = unstorableString(key);
        if (found) return found;
        stack.push(element);
      }
    }
  }
  return null;
}

/** What in one string (a value or a key) Postgres's `jsonb` refuses, or null. */
export function unstorableString(text: string): UnstorableJson | null {
  if (text.includes('\u0000')) return 'U+0000';
  return UNPAIRED_SURROGATE.test(text) ? 'unpaired surrogate' : null;
}

/** What was found, as the refusals name it. */
export function describeUnstorable(found: UnstorableJson): string {
  return found === 'U+0000' ? 'U+0000 (\\u0000)' : 'an unpaired UTF-16 surrogate (\\ud800-\\udfff)';
}

/** The refusal's wording for a field holding such a value (`input`, `jobs.3.input`). */
export function unstorableJsonError(field: string, found: UnstorableJson): string {
  return `${field}: strings may not contain ${describeUnstorable(found)}`;
}
