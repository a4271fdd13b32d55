import { describe, expect, it } from '@jest/globals';
import { IsOptional } from 'class-validator';
import { BaseConfig } from './base.config.js';
import { IsKeyRing, KeyIdsApartFrom } from './config-validators.js';
import { ConfigError, loadConfig } from './load-config.js';

/** Two key rings as the gateway and pod-lifecycle have them: the workers' apart from the registry's. */
class RingsConfig extends BaseConfig {
  @IsKeyRing()
  REGISTRY_AUTH_KEYS: string;

  @IsOptional()
  @IsKeyRing()
  @KeyIdsApartFrom('REGISTRY_AUTH_KEYS')
  WORKER_KEY_RING?: string;
}

const key = (kid: string, fill: number) => `${kid}:${Buffer.alloc(32, fill).toString('base64')}`;
const base = { DATABASE_URL: 'postgres://app@127.0.0.1:5432/app', HTTP_PORT: '8080', METRICS_PORT: '9080' };

describe('KeyIdsApartFrom', () => {
  it('takes a workers’ ring whose key ids the registry ring does not use', () => {
    const config = loadConfig(RingsConfig, {
      ...base,
      REGISTRY_AUTH_KEYS: `${key('k2', 1)},${key('k1', 2)}`,
      WORKER_KEY_RING: `${key('w2', 3)},${key('w1', 4)}`,
    });
    expect(config.WORKER_KEY_RING).toMatch(/^w2:/);
  });

  it('refuses at boot a workers’ ring sharing a key id with the registry ring, naming both, never a key', () => {
    let error: unknown;
    try {
      loadConfig(RingsConfig, {
        ...base,
        REGISTRY_AUTH_KEYS: `${key('k2', 1)},${key('k1', 2)}`,
        WORKER_KEY_RING: `${key('w1', 3)},${key('k1', 4)}`,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(
      'WORKER_KEY_RING (value not shown) is invalid: WORKER_KEY_RING must use key ids that REGISTRY_AUTH_KEYS does not use',
    );
    expect((error as Error).message).not.toContain(Buffer.alloc(32, 4).toString('base64'));
  });
});
