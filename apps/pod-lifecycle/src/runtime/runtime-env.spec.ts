import { describe, expect, it } from '@jest/globals';
import type { PodEntity } from '../pods/pod.entity.js';
import { runtimeEnv } from './pod-runtime.reconciler.js';

const pod = (env: Record<string, string>) =>
  ({ id: 'p1', gpuCount: 1, env, portMappings: {}, publicIp: null }) as unknown as PodEntity;

describe('runtimeEnv: the ports of a load-balancing worker', () => {
  it.each<{ name: string; env: Record<string, string>; port?: string; health?: string }>([
    { name: 'not an LB worker: no ports added', env: { PORT: '9000' } },
    { name: 'LB, nothing set: 80 and 80', env: { RUNPOD_ENDPOINT_TYPE: 'LB' }, port: '80', health: '80' },
    {
      name: "LB, the template's or endpoint's PORT: health on it",
      env: { RUNPOD_ENDPOINT_TYPE: 'LB', PORT: '8000' },
      port: '8000',
      health: '8000',
    },
    {
      name: 'LB, a health port of its own',
      env: { RUNPOD_ENDPOINT_TYPE: 'LB', PORT: '8000', PORT_HEALTH: '8001' },
      port: '8000',
      health: '8001',
    },
  ])('$name', ({ env, port, health }) => {
    const out = runtimeEnv(pod(env));
    expect(out.PORT).toBe(port);
    expect(out.PORT_HEALTH).toBe(health);
  });
});
