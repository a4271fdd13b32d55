import { describe, expect, it } from '@jest/globals';
import { unstorableJson, unstorableJsonError } from './storable-json.js';

describe('unstorableJson', () => {
  it('accepts what jsonb stores: text, escapes of other characters, paired surrogates, numbers, nesting', () => {
    expect(
      unstorableJson({ a: 'plain', b: ['héllo ☃ 😀', 1, null, true], c: { d: '\\u0000 as text' } }),
    ).toBeNull();
    expect(unstorableJson('\ud83d\ude00')).toBeNull();
    expect(unstorableJson(JSON.parse('"\\ud83d\\ude00"'))).toBeNull();
    expect(unstorableJson(null)).toBeNull();
    expect(unstorableJson(42)).toBeNull();
  });

  it('finds U+0000 and unpaired surrogates in strings and keys, however deep', () => {
    expect(unstorableJson({ a: [{ b: 'x\u0000y' }] })).toBe('U+0000');
    expect(unstorableJson({ ['k\u0000']: 1 })).toBe('U+0000');
    expect(unstorableJson(JSON.parse('{"a":"\\ud800"}'))).toBe('unpaired surrogate');
    expect(unstorableJson(['ok', '\udc00 low first'])).toBe('unpaired surrogate');
    expect(unstorableJson({ ['\ud83d']: 'high alone as a key' })).toBe('unpaired surrogate');
    expect(unstorableJson('\ude00\ud83d')).toBe('unpaired surrogate');
  });

  it('words the refusal for the field', () => {
    expect(unstorableJsonError('input', 'U+0000')).toBe('input: strings may not contain U+0000 (\\u0000)');
    expect(unstorableJsonError('jobs.2.input', 'unpaired surrogate')).toBe(
      'jobs.2.input: strings may not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)',
    );
  });
});
