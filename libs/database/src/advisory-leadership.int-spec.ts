import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { AdvisoryLeadership } from './advisory-leadership.js';

let database: TestDatabase | undefined;
const started: AdvisoryLeadership[] = [];

beforeAll(async () => {
  database = await createTestDatabase('leadership');
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((l) => l.stop()));
});

afterAll(async () => {
  await database?.drop();
});

const CHECK_MS = 200;

function replica(name: string): AdvisoryLeadership {
  const leadership = new AdvisoryLeadership({ databaseUrl: database!.url, name, checkMs: CHECK_MS });
  started.push(leadership);
  leadership.start();
  return leadership;
}

async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<number> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: database!.url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe('AdvisoryLeadership (a Postgres advisory lock per name)', () => {
  it('elects exactly one of three replicas, and each name apart', async () => {
    const replicas = [replica('loop'), replica('loop'), replica('loop')];
    await Promise.all(replicas.map((r) => r.settled()));
    await new Promise((r) => setTimeout(r, CHECK_MS * 3));
    expect(replicas.filter((r) => r.isLeader)).toHaveLength(1);
    const other = replica('sweeper');
    expect(await other.settled()).toBe(true);
  });

  it('hands over within a check when the leader stops', async () => {
    const [a, b] = [replica('handover'), replica('handover')];
    await Promise.all([a.settled(), b.settled()]);
    const [leader, follower] = a.isLeader ? [a, b] : [b, a];
    expect(follower.isLeader).toBe(false);
    // The follower asked Postgres and found the lock taken (what an exclusive consumer stops pulling on).
    expect([leader.heldElsewhere, follower.heldElsewhere]).toEqual([false, true]);
    await leader.stop();
    const ms = await eventually(() => follower.isLeader);
    expect(ms).toBeLessThan(CHECK_MS * 5);
  });

  it('a leader whose connection is killed stops leading, and the other takes over', async () => {
    const [a, b] = [replica('killed'), replica('killed')];
    await Promise.all([a.settled(), b.settled()]);
    const [leader, follower] = a.isLeader ? [a, b] : [b, a];
    // What a crashed process or a cut network looks like to Postgres: the backend holding the lock goes away.
    await sql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'leader:killed' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)",
    );
    await eventually(() => !leader.isLeader && follower.isLeader);
    // The old leader comes back as a follower (its new connection finds the lock taken).
    await new Promise((r) => setTimeout(r, CHECK_MS * 3));
    expect([leader.isLeader, follower.isLeader]).toEqual([false, true]);
    expect(leader.heldElsewhere).toBe(true);
  });
});
