import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { ApolloDriverConfig } from '@nestjs/apollo';
import type { ModulesContainer } from '@nestjs/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildSchema, type GraphQLSchema } from 'graphql';
import { LazyApolloDriver } from './lazy-apollo.driver.js';

const SCHEMA = buildSchema('type Query { hello: String }');

/** The driver as GraphQLModule uses it, on a real Fastify instance, its schema factory counted. */
function setup(build: () => Promise<GraphQLSchema> = () => Promise.resolve(SCHEMA)) {
  const app: FastifyInstance = Fastify();
  const driver = new LazyApolloDriver({} as ModulesContainer);
  const generateSchema = jest.fn(build);
  Object.assign(driver, {
    httpAdapterHost: { httpAdapter: { getInstance: () => app } },
    graphQlFactory: { generateSchema },
  });
  const options: ApolloDriverConfig = {
    path: '/graphql',
    plugins: [],
    rootValue: { hello: 'world' },
    stopOnTerminationSignals: false,
  };
  return { app, driver, generateSchema, options };
}

/**
 * A request over real HTTP on loopback (fastify's `inject` loads light-my-request, whose `cookie` dependency is an
 * ES module jest cannot require here). The first call listens; the driver's warm-up timer is unref'd.
 */
async function send(app: FastifyInstance, method: 'GET' | 'POST', path: string, body?: unknown) {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return {
    statusCode: response.status,
    headers: { 'content-type': response.headers.get('content-type') },
    body: text,
    json: () => JSON.parse(text) as unknown,
  };
}

const query = (app: FastifyInstance) => send(app, 'POST', '/graphql', { query: '{ hello }' });

describe('LazyApolloDriver', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it('registers the route at boot and builds the schema only when the first request needs it, once', async () => {
    const { app, driver, generateSchema, options } = setup();
    cleanup = async () => {
      await driver.stop();
      await app.close();
    };
    await expect(driver.generateSchema({})).resolves.toBeUndefined();
    await driver.registerFastify(options);
    await app.ready();
    expect(app.hasRoute({ method: 'POST', url: '/graphql' })).toBe(true);
    expect(app.hasRoute({ method: 'GET', url: '/graphql' })).toBe(true);
    expect(generateSchema).not.toHaveBeenCalled();

    const [first, second] = await Promise.all([query(app), query(app)]);
    expect([first.statusCode, first.json()]).toEqual([200, { data: { hello: 'world' } }]);
    expect(second.json()).toEqual({ data: { hello: 'world' } });
    expect((await query(app)).statusCode).toBe(200);
    expect(generateSchema).toHaveBeenCalledTimes(1);
  });

  it('serves the schema as SDL without a key, building it when no GraphQL request has yet', async () => {
    const { app, driver, generateSchema, options } = setup();
    cleanup = async () => {
      await driver.stop();
      await app.close();
    };
    await driver.registerFastify(options);
    const sdl = await send(app, 'GET', '/graphql/schema.graphql');
    expect(sdl.statusCode).toBe(200);
    expect(sdl.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(sdl.body).toBe('type Query {\n  hello: String\n}');
    expect((await query(app)).json()).toEqual({ data: { hello: 'world' } });
    expect(generateSchema).toHaveBeenCalledTimes(1);
  });

  it('answers 500 while the schema cannot be built', async () => {
    const { app, driver, options } = setup(() => Promise.reject(new Error('broken schema')));
    // Stopped as the gateway stops: its warm-up, armed by listening, would otherwise stop this process (SIGTERM).
    cleanup = async () => {
      await driver.stop();
      await app.close();
    };
    await driver.registerFastify(options);
    expect((await query(app)).statusCode).toBe(500);
  });

  it('builds it soon after listening without a request', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { app, driver, generateSchema, options } = setup();
    cleanup = async () => {
      jest.useRealTimers();
      await driver.stop();
      await app.close();
    };
    await driver.registerFastify(options);
    app.server.emit('listening');
    expect(generateSchema).not.toHaveBeenCalled();
    jest.runOnlyPendingTimers();
    await Promise.resolve();
    expect(generateSchema).toHaveBeenCalledTimes(1);
  });
});
