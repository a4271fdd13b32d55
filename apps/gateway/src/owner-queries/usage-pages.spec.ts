import { describe, expect, it, jest } from '@jest/globals';
import type { Actor, PodUsageRecord, UsageQuery } from '@app/contracts';
import type { QueryBus } from '@app/messaging';
import { USAGE_PAGE, podUsageRecords } from './usage-pages.js';

const ACTOR: Actor = { userId: 'team_1', kind: 'user' };
const RANGE = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z', bucket: 'hour' } as const;

describe('podUsageRecords', () => {
  it('asks each page after the bucket and resource of the last record of the one before', async () => {
    const hour = (h: number) => new Date(Date.UTC(2026, 0, 1, h)).toISOString();
    const all = Array.from(
      { length: USAGE_PAGE + 5 },
      (_, i) => ({ bucket: hour(i % 24), resourceId: `pod-${i}` }) as PodUsageRecord,
    );
    const query = jest.fn((_subject: string, payload: UsageQuery) => {
      const from =
        payload.afterBucket === undefined
          ? 0
          : all.findIndex(
              (r) => r.bucket === payload.afterBucket && r.resourceId === payload.afterResourceId,
            ) + 1;
      return Promise.resolve(all.slice(from, from + (payload.limit ?? all.length)));
    });
    const queries = { query } as unknown as QueryBus;
    expect(await podUsageRecords(queries, { ...RANGE, groupBy: 'cluster' }, ACTOR)).toEqual(all);
    const last = all[USAGE_PAGE - 1];
    expect(query.mock.calls.map(([, payload]) => payload)).toEqual([
      { ...RANGE, groupBy: 'cluster', limit: USAGE_PAGE },
      {
        ...RANGE,
        groupBy: 'cluster',
        limit: USAGE_PAGE,
        afterBucket: last.bucket,
        afterResourceId: last.resourceId,
      },
    ]);
  });
});
