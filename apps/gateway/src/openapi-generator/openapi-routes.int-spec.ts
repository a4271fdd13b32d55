import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { RouteOptions } from 'fastify';
import { loadConfig } from '@app/config';
import { ROOT } from '../../../../test/support/paths.js';
import {
  TEST_REGISTRY_AUTH_KEYS,
  TEST_WORKER_KEY_RING,
  deleteStreams,
  freshNatsPrefix,
} from '../../../../test/support/system.js';
import { testEnv } from '../../../../test/support/test-env.js';
import { AppModule } from '../app.module.js';
import { createValidationPipe } from '../edge/validation.pipe.js';
import { GatewayConfig } from '../gateway.config.js';
import { configureJobRoutes } from '../edge/job-routes.setup.js';
import { configureJobReadRoutes } from '../jobs/job-read-routes.setup.js';
import { OPENAPI_INTERFACES, openApiFile, openApiRoute } from '../openapi/openapi-files.js';
import { SDL_SUFFIX } from '../graphql/lazy-apollo.driver.js';
import { NON_API_PATHS } from './openapi.document.js';

const DIR = join(ROOT, 'apps/gateway/openapi');

/**
 * Routes that are not REST operations: probes, metrics, GraphQL and its SDL, the descriptions themselves, the
 * load-balancing proxy (any method and path of an LB endpoint: the worker's own API, ADR 26), and the web console's
 * single sign-on (a browser's redirects and cookies, not an API: ADR 36).
 */
const NOT_DESCRIBED = new Set([
  ...NON_API_PATHS,
  '/graphql',
  `/graphql${SDL_SUFFIX}`,
  ...OPENAPI_INTERFACES.map(openApiRoute),
  '/lb/:endpointId',
  '/lb/:endpointId/*',
  ...['config', 'login', 'callback', 'session', 'account', 'logout'].map((route) => `/console/sso/${route}`),
]);

/**
 * Every route the gateway really registers in Fastify (the whole app, initialised on the run's Postgres and
 * NATS as main.ts does it) is in the committed OpenAPI descriptions, and every described operation is a route.
 */
describe('OpenAPI descriptions cover the route table', () => {
  let app: NestFastifyApplication | undefined;
  const natsPrefix = freshNatsPrefix();
  const registered = new Set<string>();

  beforeAll(async () => {
    const env = testEnv();
    const config = loadConfig(GatewayConfig, {
      DATABASE_URL: env.databaseUrl,
      NATS_URL: env.natsUrl,
      NATS_PREFIX: natsPrefix,
      NODE_ENV: 'test',
      LOG_LEVEL: env.logLevel,
      REGISTRY_AUTH_KEYS: TEST_REGISTRY_AUTH_KEYS,
      WORKER_KEY_RING: TEST_WORKER_KEY_RING,
      OPENAPI_DIR: DIR,
    });
    app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(), {
      logger: false,
      abortOnError: false,
    });
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRoute', (route: RouteOptions) => {
        for (const method of [route.method].flat()) {
          // Fastify adds HEAD to every GET by itself.
          if (method !== 'HEAD' && !NOT_DESCRIBED.has(route.url)) registered.add(`${method} ${route.url}`);
        }
      });
    app.useGlobalPipes(createValidationPipe());
    configureJobRoutes(app, config.MAX_BODY_BYTES);
    configureJobReadRoutes(app);
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    await deleteStreams(natsPrefix);
  });

  function described(): Set<string> {
    const operations = new Set<string>();
    for (const iface of OPENAPI_INTERFACES) {
      const document = JSON.parse(readFileSync(openApiFile(DIR, iface), 'utf8')) as {
        paths: Record<string, Record<string, unknown>>;
      };
      for (const [path, item] of Object.entries(document.paths)) {
        // OpenAPI's `{param}` is Fastify's `:param`.
        const url = path.replace(/\{([^}]+)\}/g, ':$1');
        for (const method of Object.keys(item)) operations.add(`${method.toUpperCase()} ${url}`);
      }
    }
    return operations;
  }

  it('registers the REST routes (the scan found them)', () => {
    expect(registered.size).toBeGreaterThan(40);
    expect(registered).toContain('POST /v2/clusters');
    expect(registered).toContain('POST /v2/:endpointId/runsync');
  });

  it('describes every registered route (missing ones are named; run `npm run openapi`)', () => {
    const operations = described();
    const missing = [...registered].filter((route) => !operations.has(route)).sort();
    expect(missing).toEqual([]);
  });

  it('describes no operation the gateway does not serve', () => {
    const stale = [...described()].filter((route) => !registered.has(route)).sort();
    expect(stale).toEqual([]);
  });
});
