import { describe, expect, it } from '@jest/globals';
import { MASK, maskEnv } from './mask-env.js';

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
