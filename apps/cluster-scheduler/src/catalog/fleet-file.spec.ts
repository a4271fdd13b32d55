import { describe, expect, it } from '@jest/globals';
import { parseFleet } from './fleet-file.js';

const fleet = (extra: Record<string, unknown> = {}, gpu: Record<string, unknown> = {}) =>
  JSON.stringify({
    version: 1,
    gpuTypes: [
      {
        id: 'G80',
        displayName: 'G',
        manufacturer: 'Nvidia',
        memoryInGb: 80,
        maxCount: 8,
        tier: 'AMPERE_80',
        ...gpu,
      },
    ],
    cpuTypes: [{ id: 'cpu3c', displayName: 'C', cores: 4, threadsPerCore: 2 }],
    dataCenters: [{ id: 'US-TX-1', name: 'Texas', region: 'US' }],
    hosts: [],
    ...extra,
  });

describe('fleet file prices', () => {
  it('fills defaults for a self-hosted fleet when the file names none', () => {
    const parsed = parseFleet(fleet(), 'test');
    expect(parsed.gpuTypes[0].pricePerHr).toBe(1);
    expect(parsed.cpuTypes[0].pricePerHr).toBe(0.08);
    expect(parsed.prices).toEqual({ containerDiskPerGbHr: 0.00014, networkVolumePerGbHr: 0.0001 });
  });

  it("keeps the operator's prices", () => {
    const parsed = parseFleet(fleet({ prices: { networkVolumePerGbHr: 0.0002 } }, { pricePerHr: 2.49 }), 't');
    expect(parsed.gpuTypes[0].pricePerHr).toBe(2.49);
    expect(parsed.prices).toEqual({ containerDiskPerGbHr: 0.00014, networkVolumePerGbHr: 0.0002 });
  });

  it('refuses a negative or over-precise price', () => {
    expect(() => parseFleet(fleet({}, { pricePerHr: -1 }), 't')).toThrow(/pricePerHr/);
    expect(() => parseFleet(fleet({}, { pricePerHr: 0.1234567 }), 't')).toThrow(/pricePerHr/);
    expect(() => parseFleet(fleet({ prices: { containerDiskPerGbHr: 'x' } }), 't')).toThrow(/containerDisk/);
  });
});
