import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { AdvisoryPartitions } from './advisory-partitions.js';

let database: TestDatabase | undefined;
const started: AdvisoryPartitions[] = [];

beforeAll(async () => {
  database = await createTestDatabase('partitions');
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
});

afterAll(async () => {
  await database?.drop();
});

const CHECK_MS = 150;
const PARTITIONS = 16;

/**
 * Who drives each partition, as the replicas' callbacks say: taking a partition somebody else still drives is
 * the failure this whole mechanism exists to prevent, so the ledger throws on it.
 */
class Ledger {
  readonly drivers = new Map<number, string>();
  readonly doubles: string[] = [];
  readonly released = new Map<string, number>();

  replica(name: string, label: string): AdvisoryPartitions {
    const partitions = new AdvisoryPartitions({
      databaseUrl: database!.url,
      name,
      partitions: PARTITIONS,
      checkMs: CHECK_MS,
      onAcquired: (taken) => {
        for (const p of taken) {
          const other = this.drivers.get(p);
          if (other) this.doubles.push(`${p}: ${label} took it from ${other}`);
          this.drivers.set(p, label);
        }
        return Promise.resolve();
      },
      onReleased: (given) => {
        for (const p of given) if (this.drivers.get(p) === label) this.drivers.delete(p);
        this.released.set(label, (this.released.get(label) ?? 0) + given.length);
        return Promise.resolve();
      },
    });
    started.push(partitions);
    partitions.start();
    return partitions;
  }
}

async function eventually(condition: () => boolean, timeoutMs = 8000): Promise<number> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

function covered(replicas: AdvisoryPartitions[]): boolean {
  const all = replicas.flatMap((r) => r.owned());
  return all.length === PARTITIONS && new Set(all).size === PARTITIONS;
}

const sizes = (replicas: AdvisoryPartitions[]) => replicas.map((r) => r.owned().length).sort((a, b) => a - b);

describe('AdvisoryPartitions (advisory locks per partition, shared among the replicas)', () => {
  it('gives a lone replica every partition, and each name apart', async () => {
    const ledger = new Ledger();
    const alone = ledger.replica('alone', 'a');
    expect(await alone.settled()).toEqual(Array.from({ length: PARTITIONS }, (_, i) => i));
    const other = ledger.replica('elsewhere', 'b');
    expect(await other.settled()).toHaveLength(PARTITIONS);
  });

  it('splits evenly as replicas join, never letting two drive one partition', async () => {
    const ledger = new Ledger();
    const replicas = [ledger.replica('join', 'a')];
    await replicas[0].settled();
    replicas.push(ledger.replica('join', 'b'));
    await eventually(() => covered(replicas) && sizes(replicas).join() === '8,8');
    replicas.push(ledger.replica('join', 'c'));
    await eventually(() => covered(replicas) && sizes(replicas).join() === '5,5,6');
    // Stable: a few more checks move nothing.
    const before = replicas.map((r) => r.owned().join());
    await new Promise((r) => setTimeout(r, CHECK_MS * 4));
    expect(replicas.map((r) => r.owned().join())).toEqual(before);
    expect(ledger.doubles).toEqual([]);
  });

  it('hands a stopped replica’s share to the others within a couple of checks', async () => {
    const ledger = new Ledger();
    const [a, b] = [ledger.replica('leave', 'a'), ledger.replica('leave', 'b')];
    await eventually(() => covered([a, b]) && sizes([a, b]).join() === '8,8');
    await a.stop();
    const ms = await eventually(() => b.owned().length === PARTITIONS);
    expect(ms).toBeLessThan(CHECK_MS * 6);
    expect(ledger.doubles).toEqual([]);
  });

  it('a replica whose connection is killed stops driving at once; the other takes its share', async () => {
    const ledger = new Ledger();
    const [a, b] = [ledger.replica('killed', 'a'), ledger.replica('killed', 'b')];
    await eventually(() => covered([a, b]) && sizes([a, b]).join() === '8,8');
    const victim = a.owned();
    ledger.released.clear();
    // What a crashed process or a cut network looks like to Postgres: the backend holding the locks goes away.
    const admin = new pg.Client({ connectionString: database!.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
           AND l.classid = hashtext('killed')::oid AND l.objid::int8 = $1 LIMIT 1`,
        [victim[0]],
      );
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    } finally {
      await admin.end();
    }
    // The killed one gave up all it drove as soon as its connection ended.
    await eventually(() => ledger.released.get('a') === victim.length);
    // Rejoining, the killed one gets its share back from the survivor, one owner per partition throughout.
    await eventually(() => covered([a, b]) && sizes([a, b]).join() === '8,8');
    expect(ledger.doubles).toEqual([]);
  });
});
