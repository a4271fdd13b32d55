import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppName } from '@app/contracts';
import { RecordingWorkers } from './support/fault-workers.js';
import {
  A100,
  FLEET_HOSTS,
  GPUS_PER_HOST,
  LOAD_TIMINGS,
  REPLICATED,
  startFaultSystem,
  type FaultSystem,
} from './support/fault-system.js';
import { call, sleep, until } from './support/fault-calls.js';
import { jobOutcomes, placementLedger, ranTwiceWithoutLostWorker } from './support/fault-outcomes.js';
import { recordVerdict } from './support/verdict.js';

/**
 * Preemption under a job load, with two replicas of every app (docs/adr/0037-quotas-and-preemption.md): 400 jobs
 * go through two in-process workers while the fleet (4 hosts × 8 A100) is filled with low-priority 8-GPU pods and
 * four high-priority 8-GPU pods are created one after another, each preempting one; a cluster-scheduler replica is
 * killed (SIGKILL) right after the second high-priority create was sent, a pod-lifecycle replica right after the
 * third (it applies pod.cmd.preempt), each restarted a second later. Afterwards: every accepted job COMPLETED
 * exactly once, none run twice without a lost worker; every workload preempted once (one preemptions row each),
 * every preempted pod EXITED with reason PREEMPTED, every high-priority pod answered 201 RUNNING, and the ledger
 * adds up (no GPU booked twice).
 */
const JOBS = 400;
const SUBMITTERS = 12;
const HIGH = 4;
const CONVERGE_MS = 120_000;
const KILLS: Record<number, AppName> = { 1: 'cluster-scheduler', 2: 'pod-lifecycle' };

let fs: FaultSystem;
let workers: RecordingWorkers;

beforeAll(async () => {
  fs = await startFaultSystem('preempt', {
    apps: ['gateway', 'queue-broker', 'cluster-scheduler', 'pod-lifecycle'],
    endpoints: ['load'],
    env: LOAD_TIMINGS.env,
    replicas: REPLICATED,
    appEnv: {
      'queue-broker': LOAD_TIMINGS['queue-broker'],
      gateway: LOAD_TIMINGS.gateway,
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '300', SIM_START_MS: '300' },
    },
  });
  workers = new RecordingWorkers(fs, fs.endpoints.load, 2, 8);
}, 120_000);

afterAll(async () => {
  await workers?.stop();
  await fs?.close();
});

const pod = (name: string, priority: string) => ({
  name,
  image: 'runpod/base:0.6.2',
  gpu: { id: A100, count: GPUS_PER_HOST },
  disk: 10,
  priority,
});

async function create(n: number, name: string, priority: string): Promise<{ status: number; id?: string }> {
  const reply = await call(
    'POST',
    `${fs.gateways[n % fs.gateways.length]}/v2/pods`,
    fs.user.key,
    pod(name, priority),
  );
  return {
    status: reply.status,
    id: typeof reply.body?.id === 'string' ? reply.body.id : undefined,
  };
}

describe('preemption under a job load, a replica killed mid-preemption', () => {
  it('loses no job, completes none twice, preempts each workload once and keeps the ledger whole', async () => {
    const accepted: string[] = [];
    let next = 0;
    const submitter = async () => {
      while (next < JOBS) {
        const n = next++;
        const reply = await call(
          'POST',
          `${fs.gateways[n % fs.gateways.length]}/v2/${fs.endpoints.load}/run`,
          fs.user.key,
          {
            input: { n },
          },
        );
        if (reply.status === 200 && typeof reply.body?.id === 'string') {
          accepted.push(reply.body.id);
        } else if (reply.status === 0) await sleep(250);
      }
    };
    const high: { status: number; id?: string }[] = [];
    const preempting = async () => {
      for (let i = 0; i < FLEET_HOSTS; i++) expect((await create(i, `low-${i}`, 'low')).status).toBe(201);
      for (let i = 0; i < HIGH; i++) {
        const answer = create(i, `high-${i}`, 'high');
        const app = KILLS[i];
        if (app) {
          await sleep(10 + i * 7);
          await fs.system.kill(app, 'SIGKILL', 0);
          high.push(await answer);
          await sleep(1000);
          await fs.system.restart(app, {}, 0);
        } else {
          high.push(await answer);
        }
      }
    };
    await Promise.all([...Array.from({ length: SUBMITTERS }, submitter), preempting()]);

    const drained = await until(async () => {
      const o = await jobOutcomes(fs.sql, accepted);
      return o.open === 0 && o.missing === 0 ? o : null;
    }, CONVERGE_MS);
    const highIds = high.filter((h) => h.status === 201).map((h) => h.id!);
    const settled = await until(async () => {
      const { rows } = await fs.sql.query<{ preempted: number; exited: number; running: number }>(
        `SELECT (SELECT count(*)::int FROM cluster_scheduler.preemptions) AS preempted,
                (SELECT count(*)::int FROM pod_lifecycle.pods p
                  WHERE p.id IN (SELECT unnest(pod_ids) FROM cluster_scheduler.preemptions)
                    AND p.status = 'EXITED' AND p.status_reason LIKE 'PREEMPTED%') AS exited,
                (SELECT count(*)::int FROM pod_lifecycle.pods WHERE id = ANY($1::text[]) AND status = 'RUNNING') AS running`,
        [highIds],
      );
      const r = rows[0];
      return r.exited === r.preempted && r.running === highIds.length ? r : null;
    }, CONVERGE_MS);
    const outcomes = await jobOutcomes(fs.sql, accepted);
    const ranTwiceIds = [...workers.runs.entries()]
      .filter(([id, runs]) => runs > 1 && accepted.includes(id))
      .map(([id]) => id);
    const ranTwiceNoLostWorker = await ranTwiceWithoutLostWorker(fs.sql, ranTwiceIds);
    const ledger = await placementLedger(fs.sql);
    const { rows: twice } = await fs.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT unnest(pod_ids) AS pod FROM cluster_scheduler.preemptions) p
        GROUP BY pod HAVING count(*) > 1`,
    );
    const counts = {
      accepted: accepted.length,
      lost: outcomes.missing + outcomes.open,
      completedTwice: outcomes.completedTwice,
      ranTwiceNoLostWorker,
      highCreated: highIds.length,
      preempted: settled?.preempted ?? -1,
      preemptedExited: settled?.exited ?? -1,
      preemptedTwice: twice.length,
      gpuDoubleBooked: ledger.gpuDoubleBooked + ledger.ledgerMismatches,
    };
    const pass =
      drained !== null &&
      settled !== null &&
      counts.lost === 0 &&
      counts.completedTwice === 0 &&
      ranTwiceNoLostWorker === 0 &&
      highIds.length === HIGH &&
      settled.preempted === HIGH &&
      twice.length === 0 &&
      counts.gpuDoubleBooked === 0;
    recordVerdict({
      name: 'preemption under a job load, scheduler and pod-lifecycle replicas killed',
      pass,
      counts,
    });
    expect(counts).toEqual({
      ...counts,
      lost: 0,
      completedTwice: 0,
      ranTwiceNoLostWorker: 0,
      highCreated: HIGH,
      preempted: HIGH,
      preemptedExited: HIGH,
      preemptedTwice: 0,
      gpuDoubleBooked: 0,
    });
    expect(accepted.length).toBeGreaterThan(JOBS / 2);
  });
});
