import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError, Subjects, type CommandSubject } from '@app/contracts';
import { SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import type { Ledger } from '../../quotas/quota-ledger.js';
import { table } from '../../schema.js';
import { QuotaAdmission } from '../quota-admission.js';

/**
 * A lane's batch of reserves planned together (BatchPlacement) against the same commands applied one at a time: a
 * seeded history of reserves (GPU and CPU pods, 1–3 GPUs, 0–2 ports, data centers named or not, hosts pinned, pods
 * reserved again, priorities, interruptible pods that a later reserve preempts, quotas with a cohort that lends)
 * and releases, sent to one scheduler command by command and to another in batches of 1–12. Every answer and every
 * row of the ledger (hosts' free counts, reservations, ports, preemptions) must be the same.
 */
const SEED = Number(process.env.RESERVE_BATCH_SEED || 56);
const COMMANDS = 240;
const TYPES = ['NVIDIA L4', 'NVIDIA A40'];
const DCS = ['US-TX-3', 'EU-RO-1'];
const TEAMS = ['t1', 't2', 't3', 't4'];

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

/** 24 GPU hosts of 1–8 GPUs and 4 CPU hosts, in two data centers, each with only 4 public ports. */
function fleet() {
  const random = rng(SEED);
  const hosts = [];
  for (let i = 0; i < 28; i++) {
    const gpu = i < 24;
    hosts.push({
      id: `h${String(i).padStart(2, '0')}`,
      dataCenterId: DCS[i % 2],
      gpuTypeId: gpu ? TYPES[Math.floor(i / 2) % 2] : null,
      gpuCount: gpu ? 1 + Math.floor(random() * 8) : 0,
      cpuTypeId: gpu ? null : 'cpu3g',
      cpuSlots: gpu ? 0 : 3,
      publicIp: `203.0.113.${i}`,
      portRange: [20000 + i * 10, 20003 + i * 10],
    });
  }
  return {
    version: 1,
    gpuTypes: TYPES.map((id) => ({
      id,
      displayName: id,
      manufacturer: 'Nvidia',
      memoryInGb: 24,
      maxCount: 8,
      tier: 'ADA_24',
    })),
    cpuTypes: [{ id: 'cpu3g', displayName: 'General Purpose', cores: 4, threadsPerCore: 2 }],
    dataCenters: [
      { id: 'US-TX-3', name: 'Texas 3', region: 'US' },
      { id: 'EU-RO-1', name: 'Romania 1', region: 'RO' },
    ],
    hosts,
  };
}

type Command = { subject: CommandSubject; payload: unknown };

function history(): Command[] {
  const random = rng(SEED * 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const placed: string[] = [];
  const commands: Command[] = [];
  for (let n = 0; n < COMMANDS; n++) {
    const roll = random();
    if (roll < 0.15 && placed.length) {
      commands.push({ subject: Subjects.placement.release, payload: { podId: pick(placed) } });
      continue;
    }
    // Now and then a pod reserved before, reserved again (kept, or its ports given anew).
    const again = roll < 0.2 && placed.length;
    const podId = again ? pick(placed) : `pod-${n}`;
    placed.push(podId);
    const cpu = random() < 0.15;
    commands.push({
      subject: Subjects.placement.reserve,
      payload: {
        podId,
        ownerId: pick(TEAMS),
        ...(cpu
          ? { cpuTypeId: 'cpu3g', gpuCount: 0 }
          : { gpuTypeId: pick(TYPES), gpuCount: 1 + Math.floor(random() * 3) }),
        ports: ['22/tcp', '8888/http'].slice(0, Math.floor(random() * 3)),
        ...(random() < 0.3 ? { dataCenterIds: random() < 0.5 ? [pick(DCS)] : [...DCS].reverse() } : {}),
        ...(random() < 0.05 ? { hostId: `h${String(Math.floor(random() * 28)).padStart(2, '0')}` } : {}),
        ...(again && random() < 0.5 ? { reassignPorts: true } : {}),
        priority: pick(['low', 'normal', 'normal', 'high']),
        interruptible: random() < 0.25,
      },
    });
  }
  return commands;
}

/** An answer as both sides can compare it: the value, or the refusal's code and message. */
const answer = (outcome: unknown) =>
  outcome instanceof DomainError ? { refused: `${outcome.code}: ${outcome.message}` } : { value: outcome };

async function ledgerRows(scheduler: SchedulerCommands): Promise<Record<string, unknown[]>> {
  const q = (sql: string): Promise<unknown[]> => scheduler.harness.dataSource.query(sql);
  return {
    hosts: await q(`SELECT id, free_gpus, free_cpu_slots, free_ports FROM ${table('hosts')} ORDER BY id`),
    reservations: await q(`SELECT * FROM ${table('reservations')} ORDER BY pod_id`),
    ports: await q(`SELECT * FROM ${table('host_ports')} ORDER BY host_id, port`),
    // A preemption's id derives from its command's, which differ between the two sides.
    preemptions: await q(
      `SELECT at, preemptor_account_id, preemptor_workload_id, victim_owner_id, victim_cohort, workload_id, pod_ids,
              gpus, reason
         FROM ${table('preemptions')} ORDER BY preemptor_workload_id, workload_id`,
    ),
  };
}

let one: SchedulerCommands;
let lane: SchedulerCommands;

beforeAll(async () => {
  [one, lane] = await Promise.all([
    SchedulerCommands.start('scheduler_batch_one', { fleet: fleet() }),
    SchedulerCommands.start('scheduler_batch_lane', { fleet: fleet() }),
  ]);
  for (const scheduler of [one, lane]) {
    // t1 and t2 lend to each other (cohort c); t3 has a tight quota of its own; t4 none.
    for (const [accountId, cohort, gpus] of [
      ['t1', 'c', 10],
      ['t2', 'c', 6],
      ['t3', null, 5],
    ] as const) {
      await scheduler.harness.send(Subjects.quota.set, {
        accountId,
        ...(cohort ? { cohort } : {}),
        limits: TYPES.map((gpuTypeId) => ({ gpuTypeId, gpus, ...(cohort ? { borrowingLimit: 4 } : {}) })),
      });
    }
  }
});

afterAll(async () => {
  await Promise.all([one?.stop(), lane?.stop()]);
});

describe("a lane's batch of reserves", () => {
  it(`answers and writes what the same commands applied one at a time do (seed ${SEED})`, async () => {
    const commands = history();
    const alone: unknown[] = [];
    for (const { subject, payload } of commands) {
      alone.push(answer(await one.harness.send(subject, payload).catch((error: unknown) => error)));
    }
    const random = rng(SEED * 13);
    const batched: unknown[] = [];
    let together = 0;
    for (let at = 0; at < commands.length;) {
      const batch = commands.slice(at, at + 1 + Math.floor(random() * 12));
      const outcomes = await lane.harness.sendBatch(batch);
      // A refusal sends the batch back one command at a time; the others were applied together.
      if (batch.length > 1 && !outcomes.some((o) => o instanceof DomainError)) together++;
      batched.push(...outcomes.map(answer));
      at += batch.length;
    }
    expect(batched).toEqual(alone);
    expect(await ledgerRows(lane)).toEqual(await ledgerRows(one));
    // The history holds placements, refusals and preemptions, and batches that were applied together.
    const refused = alone.filter((a) => 'refused' in (a as object)).length;
    expect(refused).toBeGreaterThan(5);
    expect(alone.length - refused).toBeGreaterThan(COMMANDS / 2);
    expect(together).toBeGreaterThan(5);
    const { preemptions } = await ledgerRows(one);
    expect(preemptions.length).toBeGreaterThan(0);
  });

  it("reads every pair's quota ledger in one statement as it reads each alone", async () => {
    const admission = new QuotaAdmission(one.quotas);
    const pairs = [...TEAMS, 'nobody'].flatMap((accountId) =>
      [...TYPES, 'NO-SUCH-GPU'].map((gpuTypeId) => ({ accountId, gpuTypeId })),
    );
    const sorted = (ledger: Ledger | null) =>
      ledger && {
        ...ledger,
        usage: [...ledger.usage].sort((a, b) =>
          `${a.ownerId} ${a.dataCenterId}`.localeCompare(`${b.ownerId} ${b.dataCenterId}`),
        ),
      };
    const manager = one.harness.dataSource.manager;
    const together = await admission.ledgers(manager, pairs);
    const alone = await Promise.all(pairs.map((p) => admission.ledger(manager, p.accountId, p.gpuTypeId)));
    expect(together.map(sorted)).toEqual(alone.map(sorted));
    // Ledgers with a cohort and use were compared, not only empty ones.
    expect(alone.filter((l) => l?.peers.length && l.usage.length).length).toBeGreaterThan(2);
  });
});
