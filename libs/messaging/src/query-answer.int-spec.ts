import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { DomainError, ErrorCode, Subjects, type Actor, type ListPodsQuery } from '@app/contracts';
import type { BaseConfig } from '@app/config';
import { testEnv } from '../../../test/support/test-env.js';
import type { QueryContext } from './handler-context.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { MessageProcessor } from './message-processor.js';
import { NatsClient } from './nats-client.js';
import { QueryAnswer } from './query-answer.js';
import { QueryBus } from './query-bus.js';
import { QueryServer } from './query-server.service.js';

/**
 * A handler's pre-serialized answer (QueryAnswer) over real NATS: `queryJson` hands over the value's bytes as the
 * handler wrote them and the reply's headers, `query` the value, as from any handler; refusals throw either way.
 */
describe('QueryAnswer through the query server and QueryBus', () => {
  const prefix = `qa${randomBytes(4).toString('hex')}`;
  const actor: Actor = { userId: 'user-1', kind: 'user' };
  const value = [{ id: 'p-1', name: 'é "quoted"' }, { id: 'p-2' }];
  let client: NatsClient;
  let server: QueryServer;
  let bus: QueryBus;

  beforeAll(async () => {
    client = await NatsClient.connect(testEnv().natsUrl, prefix, 'query-answer-int-spec');
    const handler = (ctx: QueryContext<ListPodsQuery>) => {
      if (ctx.payload.limit !== 2) throw new DomainError(ErrorCode.NotFound, 'no such page');
      return QueryAnswer.serialized([Buffer.from(JSON.stringify(value))], { 'x-page-items': '2' });
    };
    const registry = { queries: new Map([[Subjects.pod.listV2, handler]]) } as unknown as HandlerRegistry;
    const processor = { find: () => Promise.resolve(null) } as unknown as MessageProcessor;
    server = new QueryServer(client, registry, processor, { app: 'pod-lifecycle' });
    server.onApplicationBootstrap();
    bus = new QueryBus(client, { BUS_REQUEST_TIMEOUT_MS: 5000 } as BaseConfig);
  });

  afterAll(async () => {
    server?.beforeApplicationShutdown();
    await client?.drain();
  });

  it('hands the value over as the bytes the handler wrote, with its headers', async () => {
    const page = await bus.queryJson(Subjects.pod.listV2, { limit: 2 }, actor);
    expect(Buffer.from(page.json).toString()).toBe(JSON.stringify(value));
    expect(page.header('x-page-items')).toBe('2');
    expect(page.header('x-page-last')).toBeUndefined();
  });

  it('answers the value itself to a caller that parses it', async () => {
    expect(await bus.query(Subjects.pod.listV2, { limit: 2 }, actor)).toEqual(value);
  });

  it('throws the refusal whichever way it is asked', async () => {
    await expect(bus.queryJson(Subjects.pod.listV2, { limit: 3 }, actor)).rejects.toMatchObject({
      code: ErrorCode.NotFound,
    });
    await expect(bus.query(Subjects.pod.listV2, { limit: 3 }, actor)).rejects.toMatchObject({
      code: ErrorCode.NotFound,
    });
  });
});
