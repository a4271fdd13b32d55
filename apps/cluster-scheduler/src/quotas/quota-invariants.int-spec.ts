import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError, Subjects } from '@app/contracts';
import { SMALL_FLEET, SchedulerCommands } from '../../../../test/support/cluster-scheduler-commands.js';
import { QUOTA_BREACHES } from '../../../../test/support/quota-ledger-checks.js';

/**
 * The ledger's invariants over a seeded random history (QUOTA_HISTORY_SEED, QUOTA_HISTORY_OPS): clients side by
 * side send over a thousand commands: pod reserves (any priority, some interruptible), cluster creates, releases and quota
 * changes (cohorts, borrowing limits, the default) to cluster-scheduler's handlers over its real schema. After each
 * command, one SQL statement (written apart from the code it checks) must find: every host's used GPUs equal to
 * what its reservations hold (no GPU counted twice, none lost), no account above its share plus its borrowing
 * limit, no cohort above its members' shares. The full system's history (two replicas, rebuilt) is the fault
 * suite's (test/faults/random-history.fault-spec.ts).
 */
const SEED = Number(process.env.QUOTA_HISTORY_SEED || 5353);
const OPS = Number(process.env.QUOTA_HISTORY_OPS || 1200);
/** Side by side, as replicas' consumers apply; few, so the int project's other files keep the database's time. */
const CLIENTS = 3;
const TEAMS = ['t1', 't2', 't3', 't4', 't5', 't6'];
const TYPES = ['NVIDIA L4', 'NVIDIA A40'];
const DCS = ['US-TX-3', 'EU-RO-1'];

/** mulberry32: small, seeded, the same sequence everywhere. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let scheduler: SchedulerCommands;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_quota_history', { fleet: SMALL_FLEET });
  scheduler.config.PREEMPTIONS_PER_MINUTE = 5;
});

afterAll(async () => {
  await scheduler?.stop();
});

describe('the GPU ledger over a random history', () => {
  it(`keeps its invariants after every command (seed ${SEED}, ${OPS} commands)`, async () => {
    const { harness } = scheduler;
    const counts: Record<string, number> = {};
    const breaches: string[] = [];
    let issued = 0;
    let clock = Date.UTC(2026, 2, 1, 12);
    const clients = Array.from({ length: CLIENTS }, async (_, n) => {
      const random = rng(SEED * 31 + n);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
      const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
      while (issued < OPS) {
        issued++;
        clock += int(0, 20_000);
        const issuedAt = new Date(clock).toISOString();
        const owner = pick(TEAMS);
        const roll = random();
        let kind: string;
        let work: Promise<unknown>;
        if (roll < 0.45) {
          kind = 'reserve';
          work = harness.send(
            Subjects.placement.reserve,
            {
              podId: `p${n}-${issued}`,
              ownerId: owner,
              gpuTypeId: pick(TYPES),
              gpuCount: int(1, 4),
              ports: [],
              priority: pick(['low', 'normal', 'high']),
              interruptible: random() < 0.2,
              ...(random() < 0.5 ? { dataCenterIds: [pick(DCS)] } : {}),
            },
            { issuedAt },
          );
        } else if (roll < 0.55) {
          kind = 'cluster';
          work = harness.send(
            Subjects.cluster.create,
            {
              name: `c${n}-${issued}`,
              type: 'TRAINING',
              priority: pick(['low', 'normal', 'high']),
              compute: { gpuTypeId: pick(TYPES), gpuCountPerPod: int(1, 2), podCount: 2 },
            },
            { issuedAt, actor: { userId: owner, kind: 'user' } },
          );
        } else if (roll < 0.85) {
          kind = 'release';
          const rows: { pod_id: string }[] = await harness.dataSource.query(
            'SELECT pod_id FROM cluster_scheduler.reservations ORDER BY pod_id',
          );
          work = rows.length
            ? harness.send(Subjects.placement.release, { podId: pick(rows).pod_id }, { issuedAt })
            : Promise.resolve();
        } else {
          kind = 'quota';
          const account = random() < 0.1 ? '*' : owner;
          const limits = TYPES.filter(() => random() < 0.7).map((gpuTypeId) => ({
            gpuTypeId,
            gpus: int(0, 10),
            borrowingLimit: random() < 0.5 ? null : int(0, 6),
            ...(random() < 0.2 ? { dataCenterId: pick(DCS) } : {}),
          }));
          const cohort = account === '*' || random() < 0.3 ? null : pick(['red', 'blue']);
          work = harness.send(Subjects.quota.set, { accountId: account, cohort, limits }, { issuedAt });
        }
        const outcome = await work.then(
          () => 'ok',
          (e: unknown) => (e instanceof DomainError ? e.code : `thrown: ${(e as Error).message}`),
        );
        counts[`${kind} ${outcome}`] = (counts[`${kind} ${outcome}`] ?? 0) + 1;
        const found: { breach: string }[] = await harness.dataSource.query(QUOTA_BREACHES);
        breaches.push(...found.map((b) => `after ${kind} #${issued}: ${b.breach}`));
      }
    });
    await Promise.all(clients);
    const preempted: { n: number }[] = await harness.dataSource.query(
      'SELECT count(*)::int AS n FROM cluster_scheduler.preemptions',
    );
    console.log(`quota history seed ${SEED}: ${JSON.stringify(counts)}, ${preempted[0].n} preempted`);
    expect(breaches).toEqual([]);
    expect(Object.keys(counts).filter((k) => k.includes('thrown'))).toEqual([]);
    // The history exercised what it is about: admissions, refusals by quota, and preemptions.
    expect(counts['reserve ok']).toBeGreaterThan(100);
    expect(counts['reserve QUOTA_EXCEEDED']).toBeGreaterThan(10);
    expect(preempted[0].n).toBeGreaterThan(10);
  }, 600_000);
});
