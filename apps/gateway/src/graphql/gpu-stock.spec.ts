import { describe, expect, it } from '@jest/globals';
import { stockStatus } from './gpu-stock.js';

const free = (freeGpus: number, maxFreeOnOneHost: number) => ({
  totalGpus: 64,
  freeGpus,
  maxFreeOnOneHost,
  hosts: 8,
});

describe('stockStatus', () => {
  it('grades by how many pods of the size asked for the free GPUs hold', () => {
    expect(stockStatus(free(8, 8), 1)).toBe('High');
    expect(stockStatus(free(7, 4), 1)).toBe('Medium');
    expect(stockStatus(free(3, 1), 1)).toBe('Medium');
    expect(stockStatus(free(2, 2), 1)).toBe('Low');
    expect(stockStatus(free(16, 8), 2)).toBe('High');
    expect(stockStatus(free(15, 8), 2)).toBe('Medium');
    expect(stockStatus(free(5, 4), 2)).toBe('Low');
  });

  it('is null (out) when no single host has the GPUs of one pod free', () => {
    expect(stockStatus(free(0, 0), 1)).toBeNull();
    expect(stockStatus(free(12, 3), 4)).toBeNull();
  });

  it('reads a gpuCount below 1 as 1', () => {
    expect(stockStatus(free(1, 1), 0)).toBe('Low');
  });
});
