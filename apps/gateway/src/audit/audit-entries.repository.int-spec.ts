import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { AuditEntry } from '@app/contracts';
import { appDataSourceOptions } from '@app/database';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import { DATA_SOURCE_SPEC } from '../data-source.js';
import { AuditEntriesRepository } from './audit-entries.repository.js';
import { parseAuditQuery } from './audit-filter.js';
import { AuditService } from './audit.service.js';
import type { Principal } from '../accounts/principal.js';

/** The trail's one read, on real Postgres with the gateway's migrations: filters, order, cursor, reach. */

let db: TestDatabase;
let dataSource: DataSource;
let entries: AuditEntriesRepository;

const T0 = Date.parse('2026-12-01T00:00:00.000Z');

function entry(n: number, over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: `aud_${String(n).padStart(4, '0')}`,
    // Two entries share each second: the id orders them.
    at: new Date(T0 + Math.floor(n / 2) * 1000).toISOString(),
    accountId: n % 3 === 0 ? 'u-b' : 'u-a',
    actor: { userId: n % 3 === 0 ? 'u-b' : n % 2 ? 'u-a' : 'u-m', keyId: 'k-1', kind: 'user' },
    action: n % 4 === 0 ? 'pod.create' : 'pod.stop',
    resourceType: 'pod',
    resourceId: `pod-${n % 5}`,
    outcome: n % 7 === 0 ? { ok: false, code: 'FORBIDDEN', message: 'no' } : { ok: true },
    commandId: `cmd-${n}`,
    ...over,
  };
}

const ALL = Array.from({ length: 60 }, (_, n) => entry(n));

beforeAll(async () => {
  db = await createTestDatabase('audit_entries_repo', { apps: ['gateway'] });
  dataSource = new DataSource(appDataSourceOptions(DATA_SOURCE_SPEC, db.url, 2, 'audit-entries-test'));
  await dataSource.initialize();
  entries = new AuditEntriesRepository(dataSource);
  await dataSource.transaction(async (manager) => {
    for (const e of ALL) await entries.insert(e, manager);
    // Delivered again (a redelivered or replayed event): kept once.
    await entries.insert(ALL[0], manager);
  });
});

afterAll(async () => {
  await dataSource?.destroy();
  await db?.drop();
});

function expected(account: string, keep: (e: AuditEntry) => boolean = () => true): string[] {
  return ALL.filter((e) => e.accountId === account && keep(e))
    .sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1))
    .map((e) => e.id);
}

function principal(accountId: string, scope = 'full'): Principal {
  return {
    user: { id: accountId } as Principal['user'],
    key: { id: 'k-1', scope } as Principal['key'],
    account: { id: accountId, name: accountId, kind: 'user' },
    role: 'owner',
  };
}

/** Every page of the trail as the route answers them, following the cursors. */
async function walk(reader: Principal, query: Record<string, string>): Promise<string[]> {
  const service = new AuditService(entries);
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await service.page(reader, { ...query, ...(cursor ? { cursor } : {}) });
    ids.push(...page.entries.map((e) => e.id));
    cursor = page.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error('the cursor never ended');
}

describe('AuditEntriesRepository', () => {
  it('answers the account entries newest first, (at, id) descending, and nothing of another account', async () => {
    const { rows, more } = await entries.page('u-a', parseAuditQuery({}));
    expect(rows.map((r) => r.id)).toEqual(expected('u-a'));
    expect(more).toBe(false);
    expect(rows.every((r) => r.accountId === 'u-a')).toBe(true);
  });

  it('reads an entry back as it was recorded', async () => {
    const service = new AuditService(entries);
    const page = await service.page(principal('u-a'), {
      resourceId: 'pod-2',
      action: 'pod.stop',
      limit: '1',
    });
    const original = ALL.find((e) => e.id === page.entries[0].id)!;
    expect(page.entries[0]).toEqual(original);
  });

  it('filters by time range, actor, action, resource type and id, together', async () => {
    const from = new Date(T0 + 5000).toISOString();
    const to = new Date(T0 + 20_000).toISOString();
    const q = (extra: Record<string, string>) => entries.page('u-a', parseAuditQuery({ from, to, ...extra }));
    const inRange = (e: AuditEntry) => e.at >= from && e.at < to;
    expect((await q({})).rows.map((r) => r.id)).toEqual(expected('u-a', inRange));
    expect((await q({ actor: 'u-m' })).rows.map((r) => r.id)).toEqual(
      expected('u-a', (e) => inRange(e) && e.actor.userId === 'u-m'),
    );
    expect((await q({ action: 'pod.create', resourceType: 'pod' })).rows.map((r) => r.id)).toEqual(
      expected('u-a', (e) => inRange(e) && e.action === 'pod.create'),
    );
    expect((await q({ resourceId: 'pod-3' })).rows.map((r) => r.id)).toEqual(
      expected('u-a', (e) => inRange(e) && e.resourceId === 'pod-3'),
    );
    expect((await q({ resourceType: 'team' })).rows).toEqual([]);
  });

  it('pages with its cursor: every entry once, in order, at any page size', async () => {
    for (const limit of ['1', '3', '7', '50']) {
      expect(await walk(principal('u-a'), { limit })).toEqual(expected('u-a'));
      expect(await walk(principal('u-a'), { limit, action: 'pod.stop' })).toEqual(
        expected('u-a', (e) => e.action === 'pod.stop'),
      );
    }
  });

  it("gives an operator every account, or the one it names; nobody else another's", async () => {
    const everyone = await walk(principal('op', 'operator'), { limit: '9' });
    expect(everyone).toHaveLength(ALL.length);
    expect(await walk(principal('op', 'operator'), { accountId: 'u-b' })).toEqual(expected('u-b'));
    await expect(new AuditService(entries).page(principal('u-a'), { accountId: 'u-b' })).rejects.toThrow(
      "only an operator's key reads another account's audit trail",
    );
  });

  it('reads a filtered page through its index', async () => {
    await dataSource.query('ANALYZE gateway.audit_entries');
    const plan = await dataSource.query<{ 'QUERY PLAN': string }[]>(
      `EXPLAIN SELECT * FROM gateway.audit_entries WHERE account_id = 'u-a' AND action = 'pod.stop' ORDER BY at DESC, id DESC LIMIT 51`,
    );
    // Tiny table: the planner may scan it whole; forbid that, and it must have an index to use.
    await dataSource.query('SET enable_seqscan = off');
    const forced = await dataSource.query<{ 'QUERY PLAN': string }[]>(
      `EXPLAIN SELECT * FROM gateway.audit_entries WHERE account_id = 'u-a' AND action = 'pod.stop' ORDER BY at DESC, id DESC LIMIT 51`,
    );
    await dataSource.query('RESET enable_seqscan');
    expect(plan.length).toBeGreaterThan(0);
    expect(forced.map((r) => r['QUERY PLAN']).join('\n')).toMatch(
      /Index Scan Backward using audit_entries_action_idx/,
    );
  });
});
