import { describe, expect, it } from '@jest/globals';
import { configRefusal } from '../../../test/support/config-refusal.js';
import { QueueBrokerConfig } from './queue-broker.config.js';

/** The queue-broker's settings that depend on one another, refused at boot with the reason. */
const env = {
  DATABASE_URL: 'postgres://app@127.0.0.1:5432/app',
  REGISTRY_AUTH_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

const message = (vars: Record<string, string>) => configRefusal(QueueBrokerConfig, { ...env, ...vars });

describe('QueueBrokerConfig', () => {
  it('accepts the defaults', () => {
    expect(message({})).toBe('accepted');
  });

  it('refuses a lease grace not longer than the ack wait', () => {
    expect(message({ COMMAND_ACK_WAIT_MS: '60000', LEASE_CONFIRM_GRACE_MS: '60000' })).toMatch(
      /LEASE_CONFIRM_GRACE_MS must be longer than COMMAND_ACK_WAIT_MS \(60000\)/,
    );
  });

  it('refuses a /health window longer than the minute rollups are kept, and takes one as long', () => {
    expect(message({ HEALTH_WINDOW_MS: '7200001', METRICS_MINUTE_RETENTION_MS: '7200000' })).toMatch(
      /HEALTH_WINDOW_MS must not be longer than METRICS_MINUTE_RETENTION_MS \(7200000\)/,
    );
    expect(message({ HEALTH_WINDOW_MS: '7200000', METRICS_MINUTE_RETENTION_MS: '7200000' })).toBe('accepted');
  });
});
