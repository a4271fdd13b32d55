import { describe, expect, it } from '@jest/globals';
import { workerEnv, workerSecretEnv } from './worker-env.js';

describe('workerEnv (compatibility.md §2)', () => {
  it('builds the webhook URLs the worker SDKs expect, with $ID and $RUNPOD_POD_ID left for them', () => {
    expect(
      workerEnv({
        endpointId: 'ep1',
        podId: 'pod1',
        queueUrl: 'http://gw:8080/',
        gpu: 'AMPERE_16',
        pingIntervalMs: 10000,
        type: 'QB',
        endpointEnv: { PORT: '9000' },
      }),
    ).toEqual({
      RUNPOD_WEBHOOK_GET_JOB: 'http://gw:8080/v2/ep1/job-take/$ID?gpu=AMPERE_16',
      RUNPOD_WEBHOOK_POST_OUTPUT: 'http://gw:8080/v2/ep1/job-done/$RUNPOD_POD_ID/$ID?gpu=AMPERE_16',
      RUNPOD_WEBHOOK_POST_STREAM: 'http://gw:8080/v2/ep1/job-stream/$RUNPOD_POD_ID/$ID?gpu=AMPERE_16',
      RUNPOD_WEBHOOK_PING: 'http://gw:8080/v2/ep1/ping/$RUNPOD_POD_ID',
      RUNPOD_POD_ID: 'pod1',
      RUNPOD_ENDPOINT_ID: 'ep1',
      RUNPOD_PING_INTERVAL: '10000',
    });
  });

  it.each<{ name: string; env: Record<string, string>; port: string; health: string }>([
    { name: 'PORT 80 and PORT_HEALTH = PORT by default', env: {}, port: '80', health: '80' },
    { name: "the endpoint's PORT, health on it", env: { PORT: '8000' }, port: '8000', health: '8000' },
    {
      name: 'a health port of its own',
      env: { PORT: '8000', PORT_HEALTH: '8001' },
      port: '8000',
      health: '8001',
    },
  ])('a load-balancing worker: $name', ({ env, port, health }) => {
    const lb = workerEnv({
      endpointId: 'ep1',
      podId: 'pod1',
      queueUrl: 'http://gw:8080',
      gpu: 'AMPERE_16',
      pingIntervalMs: 10000,
      type: 'LB',
      endpointEnv: env,
    });
    expect(lb).toMatchObject({ RUNPOD_ENDPOINT_TYPE: 'LB', PORT: port, PORT_HEALTH: health });
  });

  it('passes the key on as the gateway sealed it, bound to the endpoint', () => {
    expect(workerSecretEnv({ id: 'ep1', aiKeySealed: 'v1.k1.iv.tag.ct' })).toEqual({
      RUNPOD_AI_API_KEY: { sealed: 'v1.k1.iv.tag.ct', context: 'ep1' },
    });
  });
});
