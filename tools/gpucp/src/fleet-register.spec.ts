import { describe, expect, it } from '@jest/globals';
import { ApiError } from './api-client.js';
import { registerBody } from './fleet-register.js';

describe("gpucp fleet register's body", () => {
  it('sends only the flags given, the port range as [first, last]', () => {
    expect(registerBody('h-1', { dc: 'dc-a', gpus: 0, ip: '10.0.0.1' })).toEqual({
      id: 'h-1',
      dataCenterId: 'dc-a',
      gpuCount: 0,
      publicIp: '10.0.0.1',
    });
    expect(
      registerBody('h-2', {
        dc: 'dc-a',
        gpuType: 'NVIDIA A40',
        gpus: 8,
        cpuType: 'epyc',
        cpuSlots: 16,
        ip: '10.0.0.2',
        ports: '30000-30099',
      }),
    ).toEqual({
      id: 'h-2',
      dataCenterId: 'dc-a',
      gpuTypeId: 'NVIDIA A40',
      gpuCount: 8,
      cpuTypeId: 'epyc',
      cpuSlots: 16,
      publicIp: '10.0.0.2',
      portRange: [30000, 30099],
    });
  });

  it('refuses a port range that is not first-last as a usage error', () => {
    for (const ports of ['30000', '30000:30099', 'a-b', '-1-5']) {
      let thrown: unknown;
      try {
        registerBody('h', { dc: 'dc-a', gpus: 0, ip: '10.0.0.1', ports });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).status).toBe(2);
      expect((thrown as ApiError).message).toContain(ports);
    }
  });
});
