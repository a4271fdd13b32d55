import { describe, expect, it } from '@jest/globals';
import { isLegacyWorker } from './legacy-worker-keys.service.js';

/** The env the autoscaler of older releases gave a worker pod, key in clear. */
const legacy = {
  RUNPOD_WEBHOOK_GET_JOB: 'https://gw/v2/ep1/job-take/$ID?gpu=AMPERE_16',
  RUNPOD_WEBHOOK_PING: 'https://gw/v2/ep1/ping/$RUNPOD_POD_ID',
  RUNPOD_POD_ID: 'pod1',
  RUNPOD_AI_API_KEY: 'cpk_plain',
  RUNPOD_ENDPOINT_ID: 'ep1',
};

describe('isLegacyWorker', () => {
  it('recognises a worker pod of an older release by its key next to its own ping URL', () => {
    expect(isLegacyWorker({ env: legacy, secretEnv: {} })).toBe(true);
  });

  it.each([
    ['a user pod that sets the variable itself', { RUNPOD_AI_API_KEY: 'mine' }],
    [
      'a ping URL of another endpoint',
      { ...legacy, RUNPOD_WEBHOOK_PING: 'https://gw/v2/ep2/ping/$RUNPOD_POD_ID' },
    ],
    ['no endpoint id', { ...legacy, RUNPOD_ENDPOINT_ID: '' }],
  ])('leaves alone %s', (_case, env) => {
    expect(isLegacyWorker({ env, secretEnv: {} })).toBe(false);
  });

  it('leaves alone a pod whose key is sealed already', () => {
    const secretEnv = { RUNPOD_AI_API_KEY: { sealed: 'v1.k1.a.b.c', context: 'pod1' } };
    expect(isLegacyWorker({ env: legacy, secretEnv })).toBe(false);
  });
});
