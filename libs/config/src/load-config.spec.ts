import { describe, expect, it } from '@jest/globals';
import { BaseConfig } from './base.config.js';
import { ConfigError, loadConfig } from './load-config.js';

/** Like an app's config: the port has a default. */
class AppConfig extends BaseConfig {
  override HTTP_PORT = 8080;
  override METRICS_PORT = 9080;
}

const DATABASE_URL = 'postgres://app@127.0.0.1:5432/app';

function failure(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('fails with one line naming DATABASE_URL when it is missing', () => {
    const error = failure(() => loadConfig(AppConfig, {}));
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/^config: DATABASE_URL is not set\b/);
  });

  it('treats an empty variable as not set', () => {
    const error = failure(() => loadConfig(AppConfig, { DATABASE_URL: '' }));
    expect(error.message).toMatch(/^config: DATABASE_URL is not set\b/);
  });

  it('rejects a DATABASE_URL that is not a postgres URL, quoting the value', () => {
    const error = failure(() => loadConfig(AppConfig, { DATABASE_URL: 'mysql://x' }));
    expect(error.message).toContain('DATABASE_URL="mysql://x" is invalid');
  });

  it.each(['abc', '70000', '-1', '80.5'])('rejects HTTP_PORT=%s in one line naming it', (port) => {
    const error = failure(() => loadConfig(AppConfig, { DATABASE_URL, HTTP_PORT: port }));
    expect(error.message).not.toContain('\n');
    expect(error.message).toContain(`HTTP_PORT="${port}" is invalid`);
  });

  it('requires HTTP_PORT when the class gives no default', () => {
    const error = failure(() => loadConfig(BaseConfig, { DATABASE_URL }));
    expect(error.message).toMatch(/^config: HTTP_PORT is not set\b/);
  });

  it('applies the defaults', () => {
    const config = loadConfig(AppConfig, { DATABASE_URL });
    expect(config).toBeInstanceOf(AppConfig);
    expect(config).toMatchObject({
      DATABASE_URL,
      DATABASE_POOL_SIZE: 10,
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_PREFIX: 'gpucp',
      HTTP_PORT: 8080,
      HTTP_HOST: '127.0.0.1',
      METRICS_PORT: 9080,
      METRICS_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      SHUTDOWN_GRACE_MS: 10000,
      BUS_REQUEST_TIMEOUT_MS: 5000,
      COMMAND_TIMEOUT_MS: 15000,
      COMMAND_MAX_DELIVER: 5,
    });
    expect(config.FAULT_INJECT).toBeUndefined();
  });

  it('converts numbers and keeps given values over the defaults', () => {
    const config = loadConfig(AppConfig, {
      DATABASE_URL,
      HTTP_PORT: '9000',
      DATABASE_POOL_SIZE: '3',
      NATS_PREFIX: 'run42',
      LOG_LEVEL: 'debug',
    });
    expect(config.HTTP_PORT).toBe(9000);
    expect(config.DATABASE_POOL_SIZE).toBe(3);
    expect(config.NATS_PREFIX).toBe('run42');
    expect(config.LOG_LEVEL).toBe('debug');
  });

  it('does not copy unrelated environment variables onto the config', () => {
    const config = loadConfig(AppConfig, {
      DATABASE_URL,
      PATH: '/usr/bin',
      HOME: '/root',
      SECRET_TOKEN: 'do-not-copy',
      constructor: 'x',
    });
    const keys = Object.keys(config);
    expect(keys).not.toContain('PATH');
    expect(keys).not.toContain('HOME');
    expect(keys).not.toContain('SECRET_TOKEN');
    expect(JSON.stringify(config)).not.toContain('do-not-copy');
    expect(Object.prototype.hasOwnProperty.call(config, 'constructor')).toBe(false);
  });

  it('takes NATS credentials as a pair, and never quotes a bad password', () => {
    expect(loadConfig(AppConfig, { DATABASE_URL })).toMatchObject({
      NATS_USER: undefined,
      NATS_PASSWORD: undefined,
    });
    expect(
      loadConfig(AppConfig, { DATABASE_URL, NATS_USER: 'gateway', NATS_PASSWORD: 'correct-horse-battery' }),
    ).toMatchObject({ NATS_USER: 'gateway', NATS_PASSWORD: 'correct-horse-battery' });
    expect(failure(() => loadConfig(AppConfig, { DATABASE_URL, NATS_USER: 'gateway' })).message).toMatch(
      /^config: NATS_PASSWORD is not set \(NATS_PASSWORD must be 8-1024 characters/,
    );
    expect(
      failure(() => loadConfig(AppConfig, { DATABASE_URL, NATS_PASSWORD: 'correct-horse-battery' })).message,
    ).toMatch(/^config: NATS_USER is not set/);
    const bad = failure(() =>
      loadConfig(AppConfig, { DATABASE_URL, NATS_USER: 'gw', NATS_PASSWORD: 'has space' }),
    );
    expect(bad.message).toMatch(/^config: NATS_PASSWORD \(value not shown\) is invalid: /);
    expect(bad.message).not.toContain('has space');
  });

  it('rejects an invalid FAULT_INJECT and accepts a valid one', () => {
    const error = failure(() => loadConfig(AppConfig, { DATABASE_URL, FAULT_INJECT: 'explode:now' }));
    expect(error.message).toContain('FAULT_INJECT="explode:now" is invalid');
    const config = loadConfig(AppConfig, {
      DATABASE_URL,
      FAULT_INJECT: 'crash-before-commit:registry-auth.cmd.create',
    });
    expect(config.FAULT_INJECT).toBe('crash-before-commit:registry-auth.cmd.create');
  });
});
