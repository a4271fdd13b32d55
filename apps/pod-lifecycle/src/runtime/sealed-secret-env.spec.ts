import { describe, expect, it } from '@jest/globals';
import { SecretBox } from '@app/platform';
import { sealedSecretEnv } from './sealed-secret-env.js';

describe('sealedSecretEnv', () => {
  const box = new SecretBox(SecretBox.generateKey('k1'));
  const sealed = { RUNPOD_AI_API_KEY: { sealed: box.seal('cpk_secret', 'ep-1'), context: 'ep-1' } };

  it('names the variables at once and opens them, each under its context, only when asked', () => {
    const env = sealedSecretEnv(sealed, box);
    expect(env.names).toEqual(['RUNPOD_AI_API_KEY']);
    expect(env.open()).toEqual({ RUNPOD_AI_API_KEY: 'cpk_secret' });
  });

  it('fails naming the variable and the reason, never the value', () => {
    const moved = { OTHER: { sealed: sealed.RUNPOD_AI_API_KEY.sealed, context: 'ep-2' } };
    expect(() => sealedSecretEnv(moved, box).open()).toThrow(/^secret variable OTHER cannot be opened: /);
    expect(() => sealedSecretEnv(sealed, new SecretBox(SecretBox.generateKey('k2'))).open()).toThrow(
      'secret variable RUNPOD_AI_API_KEY cannot be opened: cannot open sealed secret (unknown format or key k1)',
    );
    expect(() => sealedSecretEnv(sealed, null).open()).toThrow(
      'secret variable RUNPOD_AI_API_KEY cannot be opened: REGISTRY_AUTH_KEYS is not set',
    );
  });

  it('an empty set opens to nothing, with or without a key ring', () => {
    expect(sealedSecretEnv({}, null).open()).toEqual({});
  });
});
