import { describe, expect, it, jest } from '@jest/globals';
import { Headers, type Actor, type ListPodsQuery, type PodView } from '@app/contracts';
import type { QueryBus } from '@app/messaging';
import { POD_PAGE, listAllPods, podsV2Body } from './pod-pages.js';

const ACTOR: Actor = { userId: 'team_1', kind: 'user' };

/** An owner holding `count` pods p0…p(count-1), answering pages as pod-lifecycle does. */
function owner(count: number) {
  const all = Array.from({ length: count }, (_, i) => ({ id: `p${i}` }) as PodView);
  const query = jest.fn((_subject: string, payload: ListPodsQuery) => {
    const from = payload.afterId === undefined ? 0 : all.findIndex((p) => p.id === payload.afterId) + 1;
    return Promise.resolve(all.slice(from, from + (payload.limit ?? all.length)));
  });
  return { all, query, queries: { query } as unknown as QueryBus };
}

describe('listAllPods', () => {
  it('asks once for a list shorter than a page', async () => {
    const { all, query, queries } = owner(3);
    expect(await listAllPods(queries, { standaloneOnly: true }, ACTOR)).toEqual(all);
    expect(query).toHaveBeenCalledTimes(1);
    expect(query.mock.calls[0][1]).toEqual({ standaloneOnly: true, limit: POD_PAGE });
  });

  it('reads page after page, each after the last pod of the one before, until a short page', async () => {
    const { all, query, queries } = owner(2 * POD_PAGE + 7);
    expect(await listAllPods(queries, {}, ACTOR)).toEqual(all);
    expect(query.mock.calls.map(([, payload]) => payload.afterId)).toEqual([
      undefined,
      `p${POD_PAGE - 1}`,
      `p${2 * POD_PAGE - 1}`,
    ]);
  });

  it('asks one more page, empty, when the list fills its pages exactly', async () => {
    const { all, query, queries } = owner(POD_PAGE);
    expect(await listAllPods(queries, {}, ACTOR)).toEqual(all);
    expect(query).toHaveBeenCalledTimes(2);
  });
});

/** An owner answering `pod.qry.list-v2` pages as pod-lifecycle does: the JSON bytes, the size and cursor in headers. */
function v2Owner(count: number) {
  const all = Array.from({ length: count }, (_, i) => ({ id: `p${i}`, name: `pod "${i}" é`, gpu: null }));
  const queryJson = jest.fn((_subject: string, payload: ListPodsQuery) => {
    const from = payload.afterId === undefined ? 0 : all.findIndex((p) => p.id === payload.afterId) + 1;
    const page = all.slice(from, from + (payload.limit ?? all.length));
    const headers: Record<string, string> = {
      [Headers.PageItems]: String(page.length),
      ...(page.length ? { [Headers.PageLast]: page[page.length - 1].id } : {}),
    };
    return Promise.resolve({
      json: Buffer.from(JSON.stringify(page)),
      header: (name: string) => headers[name],
    });
  });
  return { all, queryJson, queries: { queryJson } as unknown as QueryBus };
}

describe('podsV2Body', () => {
  it.each([0, 3, POD_PAGE, 2 * POD_PAGE + 7])(
    'joins the pages of %i pods into the bytes JSON.stringify writes of the whole list',
    async (count) => {
      const { all, queryJson, queries } = v2Owner(count);
      const body = await podsV2Body(queries, { standaloneOnly: true }, ACTOR);
      expect(body.toString()).toBe(JSON.stringify({ pods: all }));
      expect(queryJson).toHaveBeenCalledTimes(Math.floor(count / POD_PAGE) + 1);
      expect(queryJson.mock.calls[0][1]).toEqual({ standaloneOnly: true, limit: POD_PAGE });
    },
  );

  it('refuses a page that does not say its size', async () => {
    const queryJson = () => Promise.resolve({ json: Buffer.from('[]'), header: () => undefined });
    await expect(podsV2Body({ queryJson } as unknown as QueryBus, {}, ACTOR)).rejects.toThrow(
      'answered a page without its size',
    );
  });
});
