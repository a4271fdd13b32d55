import { describe, expect, it } from '@jest/globals';
import { podField, podFieldNames } from './pod-field-names.js';

describe('pod field names', () => {
  it("names each field in the surface's own words, v1 when none is said", () => {
    expect(podField('imageName', 'v2')).toBe('image');
    expect(podField('gpuCount', 'v2')).toBe('gpu.count');
    expect(podField('gpuTypeId', 'v2')).toBe('gpu.id');
    expect(podField('cpuFlavorId', 'v2')).toBe('cpu.id');
    expect(podField('networkVolumeId', 'v2')).toBe('mounts.network.0.volumeId');
    expect(podField('imageName', 'v1')).toBe('imageName');
    expect(podField('gpuCount')).toBe('gpuCount');
    const v2 = podFieldNames('v2');
    expect(`${v2('gpuCount')} must not be greater than 8`).toBe('gpu.count must not be greater than 8');
  });

  it("names GraphQL's arguments, a list it takes as one value without an index", () => {
    const graphql = podFieldNames('graphql');
    expect(graphql('dataCenterIds', 0)).toBe('dataCenterId');
    expect(graphql('cpuFlavorId')).toBe('instanceId');
    expect(graphql('gpuCount')).toBe('gpuCount');
    expect(podFieldNames('v1')('dataCenterIds', 1)).toBe('dataCenterIds.1');
  });
});
