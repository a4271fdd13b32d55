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

  it('marks a load-balancing worker, leaving PORT and PORT_HEALTH to the template and the endpoint', () => {
    const lb = workerEnv({
      endpointId: 'ep1',
      podId: 'pod1',
      queueUrl: 'http://gw:8080',
      gpu: 'AMPERE_16',
      pingIntervalMs: 10000,
      type: 'LB',
    });
    expect(lb.RUNPOD_ENDPOINT_TYPE).toBe('LB');
    expect(lb).not.toHaveProperty('PORT');
    expect(lb).not.toHaveProperty('PORT_HEALTH');
  });

  it('passes the key on as the gateway sealed it, bound to the endpoint', () => {
    expect(workerSecretEnv({ id: 'ep1', aiKeySealed: 'v1.k1.iv.tag.ct' })).toEqual({
      RUNPOD_AI_API_KEY: { sealed: 'v1.k1.iv.tag.ct', context: 'ep1' },
    });
  });
});
