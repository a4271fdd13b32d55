import { describe, expect, it } from '@jest/globals';
import { MASK, maskEnv, unmaskEnv } from './mask-env.js';

describe('maskEnv', () => {
  it('masks the values of secret-looking names, whatever their case', () => {
    expect(
      maskEnv({
        HF_TOKEN: 'hf_abc',
        db_password: 'pw',
        AWS_SECRET_ACCESS_KEY: 'x',
        api_key: 'k',
        MODEL: 'llama',
        PORT: '8080',
        EMPTY_SECRET: '',
      }),
    ).toEqual({
      HF_TOKEN: MASK,
      db_password: MASK,
      AWS_SECRET_ACCESS_KEY: MASK,
      api_key: MASK,
      MODEL: 'llama',
      PORT: '8080',
      EMPTY_SECRET: '',
    });
  });
});

describe('unmaskEnv', () => {
  it('keeps the stored value behind a mask sent back, and takes every other value as sent', () => {
    const stored = { HF_TOKEN: 'hf_abc', MODEL: 'llama', OLD_KEY: 'k' };
    expect(unmaskEnv({ HF_TOKEN: MASK, MODEL: 'mistral', NEW_SECRET: MASK, api_key: 'new' }, stored)).toEqual(
      {
        HF_TOKEN: 'hf_abc',
        MODEL: 'mistral',
        NEW_SECRET: MASK,
        api_key: 'new',
      },
    );
    expect(unmaskEnv(maskEnv(stored), stored)).toEqual(stored);
  });
});
