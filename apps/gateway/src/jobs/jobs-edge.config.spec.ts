import { describe, expect, it } from '@jest/globals';
import { configRefusal } from '../../../../test/support/config-refusal.js';
import { JobsEdgeConfig } from './jobs-edge.config.js';

/** The queue and worker routes' settings that depend on one another, refused at boot with the reason. */
const message = (vars: Record<string, string>) => configRefusal(JobsEdgeConfig, vars);

describe('JobsEdgeConfig', () => {
  it('accepts the defaults, and a hand-out window a second or more below the lease grace', () => {
    expect(message({})).toBe('accepted');
    expect(message({ JOB_TAKE_HAND_OUT_MS: '4000', LEASE_CONFIRM_GRACE_MS: '5000' })).toBe('accepted');
    expect(message({ LEASE_CONFIRM_GRACE_MS: '45000' })).toBe('accepted');
  });

  it('refuses a hand-out window that ends less than a second before the lease grace', () => {
    expect(message({ JOB_TAKE_HAND_OUT_MS: '4500', LEASE_CONFIRM_GRACE_MS: '5000' })).toMatch(
      /JOB_TAKE_HAND_OUT_MS must be at least 1000 ms below LEASE_CONFIRM_GRACE_MS \(5000\)/,
    );
    // The default window (30 s) against a grace lowered for every app without lowering the window.
    expect(message({ LEASE_CONFIRM_GRACE_MS: '12000' })).toMatch(
      /JOB_TAKE_HAND_OUT_MS must be at least 1000 ms below LEASE_CONFIRM_GRACE_MS \(12000\)/,
    );
  });
});
