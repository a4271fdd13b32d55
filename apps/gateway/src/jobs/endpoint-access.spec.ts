import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Actor, EndpointView } from '@app/contracts';
import type { QueryBus } from '@app/messaging';
import { EndpointAccess } from './endpoint-access.js';
import type { JobsEdgeConfig } from './jobs-edge.config.js';

const actor = { userId: 'u1' } as Actor;

/** An owner whose answers come when the test says: `answer()` settles the oldest query. */
function owner() {
  const pending: { resolve: (v: EndpointView) => void; reject: (e: Error) => void }[] = [];
  let version = 0;
  const queries = {
    query: jest.fn(
      () =>
        new Promise<EndpointView>((resolve, reject) => {
          pending.push({ resolve, reject });
        }),
    ),
  };
  return {
    queries,
    asked: () => queries.query.mock.calls.length,
    answer: async () => {
      pending.shift()!.resolve({ id: 'e1', type: 'LB', version: ++version } as unknown as EndpointView);
      await Promise.resolve();
    },
    fail: async () => {
      pending.shift()!.reject(new Error('gone'));
      await Promise.resolve();
    },
  };
}

function access(o: ReturnType<typeof owner>, ttl = 2000): EndpointAccess {
  return new EndpointAccess(o.queries as unknown as QueryBus, { ENDPOINT_CACHE_MS: ttl } as JobsEdgeConfig);
}

describe('EndpointAccess', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('asks once for the requests that miss together', async () => {
    const o = owner();
    const a = access(o);
    const views = [a.ownedEndpoint('e1', actor), a.ownedEndpoint('e1', actor), a.ownedEndpoint('e1', actor)];
    await o.answer();
    expect(o.asked()).toBe(1);
    expect(new Set(await Promise.all(views)).size).toBe(1);
  });

  it('past half its life, serves the answer and refreshes it in the background; never older than the TTL', async () => {
    const o = owner();
    const a = access(o);
    const first = a.ownedEndpoint('e1', actor);
    await o.answer();
    const v1 = await first;
    jest.setSystemTime(999);
    expect(await a.ownedEndpoint('e1', actor)).toBe(v1);
    expect(o.asked()).toBe(1);
    jest.setSystemTime(1000);
    // Served at once, though a refresh is under way (one, however many requests come meanwhile).
    expect(await a.ownedEndpoint('e1', actor)).toBe(v1);
    expect(await a.ownedEndpoint('e1', actor)).toBe(v1);
    expect(o.asked()).toBe(2);
    await o.answer();
    const v2 = await a.ownedEndpoint('e1', actor);
    expect(v2).not.toBe(v1);
    // The refreshed answer counts from when its query was sent (1000): it expires at 3000.
    jest.setSystemTime(3000);
    const late = a.ownedEndpoint('e1', actor);
    expect(o.asked()).toBe(3);
    await o.answer();
    expect(await late).not.toBe(v2);
  });

  it('a failed refresh leaves the answer to expire; the next request then waits for the owner', async () => {
    const o = owner();
    const a = access(o);
    const first = a.ownedEndpoint('e1', actor);
    await o.answer();
    const v1 = await first;
    jest.setSystemTime(1500);
    expect(await a.ownedEndpoint('e1', actor)).toBe(v1);
    await o.fail();
    jest.setSystemTime(2000);
    const next = a.ownedEndpoint('e1', actor);
    expect(o.asked()).toBe(3);
    await o.fail();
    await expect(next).rejects.toThrow('gone');
  });

  it('without a cache (ENDPOINT_CACHE_MS 0), every request asks for itself', async () => {
    const o = owner();
    const a = access(o, 0);
    const views = [a.ownedEndpoint('e1', actor), a.ownedEndpoint('e1', actor)];
    expect(o.asked()).toBe(2);
    await o.answer();
    await o.answer();
    await Promise.all(views);
  });
});
