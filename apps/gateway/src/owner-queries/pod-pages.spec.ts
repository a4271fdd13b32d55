import { describe, expect, it, jest } from '@jest/globals';
import { Headers, MAX_POD_PAGE, type Actor, type ListPodsQuery, type PodView } from '@app/contracts';
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

/**
 * An owner answering `pod.qry.list-v2` pages as pod-lifecycle does: the JSON bytes, the next page's cursor in a
 * header; at most `cut` pods a page (pod-lifecycle cuts a page at its size in bytes too).
 */
function v2Owner(count: number, cut = Infinity) {
  const all = Array.from({ length: count }, (_, i) => ({ id: `p${i}`, name: `pod "${i}" é`, gpu: null }));
  const queryJson = jest.fn((_subject: string, payload: ListPodsQuery) => {
    const from = payload.afterId === undefined ? 0 : all.findIndex((p) => p.id === payload.afterId) + 1;
    const page = all.slice(from, from + Math.min(cut, payload.limit ?? all.length));
    const more = from + page.length < all.length;
    const headers: Record<string, string> = more ? { [Headers.PageNext]: page[page.length - 1].id } : {};
    return Promise.resolve({
      json: Buffer.from(JSON.stringify(page)),
      header: (name: string) => headers[name],
    });
  });
  return { all, queryJson, queries: { queryJson } as unknown as QueryBus };
}

describe('podsV2Body', () => {
  it.each([0, 3, MAX_POD_PAGE, 2 * MAX_POD_PAGE + 7])(
    'joins the pages of %i pods into the bytes JSON.stringify writes of the whole list',
    async (count) => {
      const { all, queryJson, queries } = v2Owner(count);
      const body = await podsV2Body(queries, { standaloneOnly: true }, ACTOR);
      expect(body.toString()).toBe(JSON.stringify({ pods: all }));
      expect(queryJson).toHaveBeenCalledTimes(Math.max(1, Math.ceil(count / MAX_POD_PAGE)));
      expect(queryJson.mock.calls[0][1]).toEqual({ standaloneOnly: true, limit: MAX_POD_PAGE });
    },
  );

  it("follows the owner's cursor, however many pods its pages hold", async () => {
    const { all, queryJson, queries } = v2Owner(25, 10);
    expect((await podsV2Body(queries, {}, ACTOR)).toString()).toBe(JSON.stringify({ pods: all }));
    expect(queryJson.mock.calls.map(([, payload]) => payload.afterId)).toEqual([undefined, 'p9', 'p19']);
  });
});
