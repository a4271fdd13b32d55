import { describe, expect, it } from '@jest/globals';
import { PodStatus } from '@app/contracts';
import { accrues, costPerHr, usageChanges } from './pod-usage.rules.js';

const { Provisioning, Starting, Running, Exited, Error: Err, Terminated } = PodStatus;

describe('pod accrual rules', () => {
  it('accrues compute while the pod holds its GPUs, disk until it is terminated', () => {
    expect(
      [Provisioning, Starting, Running, Exited, Err, Terminated].map((s) => accrues('compute', s)),
    ).toEqual([true, true, true, false, false, false]);
    expect([Provisioning, Starting, Running, Exited, Err, Terminated].map((s) => accrues('disk', s))).toEqual(
      [true, true, true, true, true, false],
    );
  });

  it('opens and closes intervals only where accrual starts or ends', () => {
    expect(usageChanges(null, Provisioning)).toEqual({ open: ['compute', 'disk'], close: [] });
    expect(usageChanges(Starting, Running)).toEqual({ open: [], close: [] });
    expect(usageChanges(Running, Exited)).toEqual({ open: [], close: ['compute'] });
    expect(usageChanges(Running, Err)).toEqual({ open: [], close: ['compute'] });
    expect(usageChanges(Exited, Starting)).toEqual({ open: ['compute'], close: [] });
    expect(usageChanges(Running, Terminated)).toEqual({ open: [], close: ['compute', 'disk'] });
    expect(usageChanges(Exited, Terminated)).toEqual({ open: [], close: ['disk'] });
    expect(usageChanges(Terminated, Terminated)).toEqual({ open: [], close: [] });
  });

  it('prices a running pod per hour: compute plus its container disk', () => {
    expect(costPerHr({ computePerHr: 4.98, containerDiskGb: 20, containerDiskPerGbHr: 0.00014 })).toBe(
      4.9828,
    );
  });
});
