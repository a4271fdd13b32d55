import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '@app/config';
import { GatewayConfig } from './gateway.config.js';
import {
  POLICY_VARIABLES,
  RATE_LIMIT_POLICY_NAMES,
  costUnits,
  policiesFrom,
  scopeOf,
} from './rate-limit-policies.js';

const BASE = {
  DATABASE_URL: 'postgres://gw@127.0.0.1:5432/gw',
  REGISTRY_AUTH_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  WORKER_KEY_RING: `w1:${Buffer.alloc(32, 9).toString('base64')}`,
};

function failure(env: Record<string, string>): string {
  try {
    loadConfig(GatewayConfig, { ...BASE, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('rate-limit configuration', () => {
  it('has documented defaults: on, real windows, every policy', () => {
    const config = loadConfig(GatewayConfig, BASE);
    expect(config.RATE_LIMITS_ENABLED).toBe(true);
    const policies = policiesFrom(config);
    expect([...policies.keys()]).toEqual([...RATE_LIMIT_POLICY_NAMES]);
    expect(policies.get('rest')).toEqual({
      name: 'rest',
      scope: 'user',
      quotas: { minute: 300, hour: 6000, day: 50000 },
      windowSeconds: { minute: 60, hour: 3600, day: 86400 },
    });
    expect(policies.get('queue.purge-queue')?.quotas).toEqual({ minute: 10, hour: 100, day: 1000 });
    expect(policies.get('queue.run')?.scope).toBe('user-endpoint');
  });

  it('reads every policy from its own variable', () => {
    const env = Object.fromEntries(
      RATE_LIMIT_POLICY_NAMES.map((name, i) => [POLICY_VARIABLES[name], `${i},${i + 10},${i + 100}`]),
    );
    const policies = policiesFrom(loadConfig(GatewayConfig, { ...BASE, ...env }));
    RATE_LIMIT_POLICY_NAMES.forEach((name, i) => {
      expect(policies.get(name)?.quotas).toEqual({ minute: i, hour: i + 10, day: i + 100 });
    });
  });

  it('turns the limiter off with RATE_LIMITS_ENABLED=false and rejects other words', () => {
    expect(loadConfig(GatewayConfig, { ...BASE, RATE_LIMITS_ENABLED: 'false' }).RATE_LIMITS_ENABLED).toBe(
      false,
    );
    expect(loadConfig(GatewayConfig, { ...BASE, RATE_LIMITS_ENABLED: 'true' }).RATE_LIMITS_ENABLED).toBe(
      true,
    );
    expect(failure({ RATE_LIMITS_ENABLED: 'yes' })).toContain('RATE_LIMITS_ENABLED must be true or false');
  });

  it.each(['300', '300,6000', '-1,2,3', '1,2,x', '1.5,2,3'])('rejects RATE_LIMIT_REST=%s', (value) => {
    expect(failure({ RATE_LIMIT_REST: value })).toContain(
      `RATE_LIMIT_REST=${JSON.stringify(value)} is invalid`,
    );
  });

  it('accepts test window lengths only with NODE_ENV=test', () => {
    expect(failure({ RATE_LIMIT_WINDOW_SECONDS: '2,6,12' })).toContain('test-only');
    const config = loadConfig(GatewayConfig, {
      ...BASE,
      NODE_ENV: 'test',
      RATE_LIMIT_WINDOW_SECONDS: '2,6,12',
    });
    expect(policiesFrom(config).get('rest')?.windowSeconds).toEqual({ minute: 2, hour: 6, day: 12 });
    expect(failure({ NODE_ENV: 'test', RATE_LIMIT_WINDOW_SECONDS: '0,6,12' })).toContain('positive integers');
  });

  it('counts the queue policies per endpoint, the REST and GraphQL policies per user', () => {
    expect(RATE_LIMIT_POLICY_NAMES.filter((name) => scopeOf(name) === 'user')).toEqual(['rest', 'graphql']);
  });

  it('has a GraphQL policy of its own, RATE_LIMIT_GRAPHQL', () => {
    const config = loadConfig(GatewayConfig, { ...BASE, RATE_LIMIT_GRAPHQL: '7,8,9' });
    expect(policiesFrom(config).get('graphql')?.quotas).toEqual({ minute: 7, hour: 8, day: 9 });
    expect(POLICY_VARIABLES.graphql).toBe('RATE_LIMIT_GRAPHQL');
  });
});

describe('costUnits', () => {
  it('counts ceil(cost / GRAPHQL_COST_PER_UNIT), at least one unit', () => {
    expect(costUnits(1, 100)).toBe(1);
    expect(costUnits(100, 100)).toBe(1);
    expect(costUnits(100.5, 100)).toBe(2);
    expect(costUnits(4999, 100)).toBe(50);
    expect(costUnits(12, 5)).toBe(3);
  });

  it('counts one unit when the cost is unknown or nothing', () => {
    expect(costUnits(undefined, 100)).toBe(1);
    expect(costUnits(0, 100)).toBe(1);
    expect(costUnits(Number.NaN, 100)).toBe(1);
  });
});
