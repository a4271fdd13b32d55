import { describe, expect, it } from '@jest/globals';
import { REDACTED, redact } from './redact.js';

describe('redact', () => {
  it('hides sealed secrets, passwords and every env value, and keeps the rest', () => {
    const payload = {
      name: 'hub',
      username: 'me',
      passwordSealed: 'v1.k1.abc.def.ghi',
      registryAuthId: 'ra_1',
      env: { MODEL: 'llama', HF_TOKEN: 'hf_x' },
      nested: [{ apiKey: 'k', aiKeySealed: 'v1.x', token: '', keep: 1 }],
      input: { prompt: 'hi', secret: 's' },
    };
    expect(redact(payload)).toEqual({
      name: 'hub',
      username: 'me',
      passwordSealed: REDACTED,
      registryAuthId: 'ra_1',
      env: { MODEL: REDACTED, HF_TOKEN: REDACTED },
      nested: [{ apiKey: REDACTED, aiKeySealed: REDACTED, token: '', keep: 1 }],
      input: { prompt: 'hi', secret: REDACTED },
    });
    expect(payload.passwordSealed).toBe('v1.k1.abc.def.ghi'); // a copy, not in place
  });
});
