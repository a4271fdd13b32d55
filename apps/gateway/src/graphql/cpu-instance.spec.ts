import { describe, expect, it } from '@jest/globals';
import { DomainError, type CpuTypeView } from '@app/contracts';
import { cpuTypeOfInstance } from './cpu-instance.js';

const types = ['cpu3c', 'cpu3g'].map((id): CpuTypeView => ({
  id,
  displayName: id,
  cores: 64,
  threadsPerCore: 2,
  pricePerHr: 0.1,
  availability: { totalSlots: 4, freeSlots: 4, dataCenterIds: [] },
}));

describe('cpuTypeOfInstance', () => {
  it('takes a CPU type id of the catalog as it is', () => {
    expect(cpuTypeOfInstance('cpu3g', types)).toBe('cpu3g');
  });

  it("resolves RunPod's <type>-<vCPUs>-<memoryGB> to its type", () => {
    expect(cpuTypeOfInstance('cpu3c-2-4', types)).toBe('cpu3c');
    expect(cpuTypeOfInstance('cpu3g-8-32', types)).toBe('cpu3g');
  });

  it('refuses anything else, naming instanceId and the known types', () => {
    for (const bad of ['cpu5c-2-4', 'cpu3c-0-4', 'cpu3c-2', 'nope']) {
      let thrown: unknown;
      try {
        cpuTypeOfInstance(bad, types);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).errors).toEqual([
        expect.stringMatching(/^instanceId must be .*cpu3c, cpu3g/),
      ]);
      expect((thrown as DomainError).errors![0]).toContain(`"${bad}" is neither`);
    }
  });
});
