import { describe, expect, it } from '@jest/globals';
import { SecretBox, WorkerKeyBox } from '@app/platform';
import { sealedSecretEnv } from './sealed-secret-env.js';

describe('sealedSecretEnv', () => {
  const box = new WorkerKeyBox(SecretBox.generateKey('k1'), undefined);
  const sealed = { RUNPOD_AI_API_KEY: { sealed: box.seal('cpk_secret', 'ep-1'), context: 'ep-1' } };

  it('names the variables at once and opens them, each under its context, only when asked', () => {
    const env = sealedSecretEnv(sealed, box);
    expect(env.names).toEqual(['RUNPOD_AI_API_KEY']);
    expect(env.open()).toEqual({ RUNPOD_AI_API_KEY: 'cpk_secret' });
  });

  it('fails naming the variable and the reason, never the value', () => {
    const moved = { OTHER: { sealed: sealed.RUNPOD_AI_API_KEY.sealed, context: 'ep-2' } };
    expect(() => sealedSecretEnv(moved, box).open()).toThrow(/^secret variable OTHER cannot be opened: /);
    const otherRing = new WorkerKeyBox(SecretBox.generateKey('k2'), undefined);
    expect(() => sealedSecretEnv(sealed, otherRing).open()).toThrow(
      'secret variable RUNPOD_AI_API_KEY cannot be opened: cannot open sealed worker key (key k1 is in neither WORKER_KEY_RING nor REGISTRY_AUTH_KEYS)',
    );
    expect(() => sealedSecretEnv(sealed, new WorkerKeyBox(undefined, undefined)).open()).toThrow(
      'secret variable RUNPOD_AI_API_KEY cannot be opened: cannot open sealed worker key: WORKER_KEY_RING is not set',
    );
  });

  it('an empty set opens to nothing, with or without a key ring', () => {
    expect(sealedSecretEnv({}, new WorkerKeyBox(undefined, undefined)).open()).toEqual({});
  });
});
