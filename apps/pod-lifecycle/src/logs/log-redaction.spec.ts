import { describe, expect, it } from '@jest/globals';
import type { LoggedRun } from './log-sink.js';
import { injectedSecrets, redactor } from './log-redaction.js';

function run(secrets: () => Record<string, string>, password?: () => string): LoggedRun {
  return {
    podId: 'pod-1',
    generation: 1,
    secretEnv: { open: secrets },
    pullSecret: password ? { username: 'me', password } : null,
  };
}

describe('log redaction', () => {
  it('collects the secret variables, the registry password and its Docker auth form', () => {
    const secrets = injectedSecrets(
      run(
        () => ({ RUNPOD_AI_API_KEY: 'cpk_key' }),
        () => 'pw-123',
      ),
    );
    expect(secrets).toEqual(['cpk_key', 'pw-123', Buffer.from('me:pw-123').toString('base64')]);
  });

  it('leaves out what cannot be opened (the run fails at start anyway) and empty values', () => {
    const failing = () => {
      throw new Error('cannot open');
    };
    expect(injectedSecrets(run(failing, failing))).toEqual([]);
    expect(injectedSecrets(run(() => ({ EMPTY: '' })))).toEqual([]);
  });

  it('replaces every occurrence, a longer secret containing a shorter one whole', () => {
    const redact = redactor(['abc', 'xxabcxx']);
    expect(redact('key=xxabcxx and abc, abcabc')).toBe('key=[redacted] and [redacted], [redacted][redacted]');
    expect(redactor([])('nothing secret')).toBe('nothing secret');
  });
});
