import { describe, expect, it } from '@jest/globals';
import { RequestMethod } from '@nestjs/common';
import { HealthController } from '@app/platform';
import { HEALTH_ROUTES } from './context.js';

/** The probe paths of the manifests are routes the HealthController of every app really serves. */
describe('health routes probed by the manifests', () => {
  const proto = HealthController.prototype as unknown as Record<string, unknown>;
  const served = Object.getOwnPropertyNames(HealthController.prototype)
    .map((name) => proto[name])
    .filter((handler): handler is object => typeof handler === 'function')
    .filter((handler) => Reflect.getMetadata('method', handler) === RequestMethod.GET)
    .map((handler) => `/${String(Reflect.getMetadata('path', handler)).replace(/^\//, '')}`);

  it.each(Object.entries(HEALTH_ROUTES))('%s %s is a GET route of HealthController', (_probe, path) => {
    expect(served).toContain(path);
  });
});
