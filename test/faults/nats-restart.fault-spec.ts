import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppName } from '@app/contracts';
import {
  A100,
  startFaultSystem,
  type FaultSystem,
  LOAD_TIMINGS,
  REPLICATED,
} from './support/fault-system.js';
import { call, sleep, until } from './support/fault-calls.js';
import { RecordingWorkers } from './support/fault-workers.js';
import {
  jobOutcomes,
  placementLedger,
  explainNotCompleted,
  ranTwiceWithoutLostWorker,
} from './support/fault-outcomes.js';
import { privateNats } from './support/infra-control.js';
import { recordVerdict } from './support/verdict.js';

/**
 * The NATS server killed (SIGKILL) in the middle of load and started again 2 s later, same port and store, with two
 * replicas of the gateway and of the queue-broker (REPLICATED; submits round-robin over both gateways, one worker
 * on each): the apps reconnect by themselves (none exits or is restarted), every job accepted before, during and
 * after the outage COMPLETES exactly once, and the system takes new jobs and cluster creates afterwards.
 */
const APPS = ['gateway', 'queue-broker', 'cluster-scheduler'] as const satisfies AppName[];
const JOBS = 500;
const KILL_AFTER = 150;
const SUBMITTERS = 12;
const OUTAGE_MS = 2000;
const RECOVER_MS = 60_000;
const CONVERGE_MS = 120_000;

let fs: FaultSystem;
let workers: RecordingWorkers;

beforeAll(async () => {
  fs = await startFaultSystem('nats', {
    apps: APPS,
    endpoints: ['load'],
    env: LOAD_TIMINGS.env,
    replicas: REPLICATED,
    appEnv: {
      'queue-broker': LOAD_TIMINGS['queue-broker'],
      gateway: LOAD_TIMINGS.gateway,
    },
  });
  workers = new RecordingWorkers(fs, fs.endpoints.load, 2, 8);
}, 120_000);

afterAll(async () => {
  if (!privateNats.isRunning()) await privateNats.start();
  await workers?.stop();
  await fs?.close();
});

async function allReady(): Promise<boolean> {
  const answers = await Promise.all(
    APPS.flatMap((app) => fs.system.urls(app)).map((url) =>
      fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })
        .then(async (r) => {
          await r.body?.cancel();
          return r.status === 200;
        })
        .catch(() => false),
    ),
  );
  return answers.every(Boolean);
}

describe('NATS server killed and restarted during load', () => {
  it('the apps reconnect by themselves and nothing accepted is lost', async () => {
    const accepted: string[] = [];
    const refused: number[] = [];
    let next = 0;
    let outage: Promise<void> = Promise.resolve();
    let ready: boolean | null = null;
    let reconnectMs = -1;
    const submitter = async () => {
      while (next < JOBS) {
        const n = next++;
        if (n === KILL_AFTER) {
          outage = (async () => {
            await privateNats.kill('SIGKILL');
            await sleep(OUTAGE_MS);
            await privateNats.start();
            const restartedAt = Date.now();
            // Reconnected: every app ready again (none restarted or gone, checked below).
            ready = await until(allReady, RECOVER_MS, 100);
            reconnectMs = Date.now() - restartedAt;
          })();
        }
        const gateway = fs.gateways[n % fs.gateways.length];
        const reply = await call('POST', `${gateway}/v2/${fs.endpoints.load}/run`, fs.user.key, {
          input: { phase: 'nats', n },
        });
        if (reply.status === 200 && typeof reply.body?.id === 'string') accepted.push(reply.body.id);
        else {
          refused.push(reply.status);
          await sleep(100);
        }
      }
    };
    await Promise.all(Array.from({ length: SUBMITTERS }, submitter));
    await outage;

    const exited = APPS.filter((app) => !fs.system.isRunning(app));

    // Service resumed: new jobs and a cluster create are accepted after the restart.
    const after: string[] = [];
    const afterRefused: number[] = [];
    for (let n = 0; n < 50; n++) {
      const gateway = fs.gateways[n % fs.gateways.length];
      const reply = await call('POST', `${gateway}/v2/${fs.endpoints.load}/run`, fs.user.key, {
        input: { phase: 'nats-after', n },
      });
      if (reply.status === 200) after.push(reply.body.id as string);
      else afterRefused.push(reply.status);
    }
    const cluster = await call('POST', `${fs.gateway}/v2/clusters`, fs.user.key, {
      name: 'after-nats',
      type: 'RAY',
      compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
    });

    const all = [...accepted, ...after];
    const drained = await until(async () => {
      const o = await jobOutcomes(fs.sql, all);
      return o.open === 0 && o.missing === 0 ? o : null;
    }, CONVERGE_MS);
    const outcomes = await jobOutcomes(fs.sql, all);
    const ledger = await placementLedger(fs.sql);
    const ranTwiceIds = [...workers.runs.entries()].filter(([, runs]) => runs > 1).map(([id]) => id);
    const lost = outcomes.missing + outcomes.open;
    const notCompleted = all.length - (outcomes.byStatus.COMPLETED ?? 0);
    const counts = {
      submitted: JOBS,
      accepted: accepted.length,
      refusedDuringOutage: refused.length,
      acceptedAfter: after.length,
      refusedAfter: afterRefused.length,
      lost,
      notCompleted,
      failed: outcomes.byStatus.FAILED ?? 0,
      timedOut: outcomes.byStatus.TIMED_OUT ?? 0,
      completedTwice: outcomes.completedTwice,
      wrongOutput: outcomes.wrongOutput,
      ranTwice: ranTwiceIds.length,
      ranTwiceNoLostWorker: await ranTwiceWithoutLostWorker(fs.sql, ranTwiceIds),
      appsExited: exited.length,
      clusterCreateAfter: cluster.status,
      gpuDoubleBooked: ledger.gpuDoubleBooked + ledger.ledgerMismatches,
      reconnectMs,
    };
    const pass =
      ready === true &&
      drained !== null &&
      exited.length === 0 &&
      lost === 0 &&
      notCompleted === 0 &&
      outcomes.completedTwice === 0 &&
      outcomes.wrongOutput === 0 &&
      counts.ranTwiceNoLostWorker === 0 &&
      afterRefused.length === 0 &&
      cluster.status === 201 &&
      ledger.gpuDoubleBooked + ledger.ledgerMismatches === 0;
    recordVerdict({
      name: `NATS killed and restarted (${REPLICATED.gateway} gateways, ${REPLICATED['queue-broker']} brokers)`,
      pass,
      counts,
    });
    if (notCompleted > 0) {
      console.warn(`${notCompleted} accepted job(s) not COMPLETED:\n${await explainNotCompleted(fs, all)}`);
    }

    expect(ready).toBe(true);
    expect(exited).toEqual([]);
    expect(afterRefused).toEqual([]);
    expect(cluster.status).toBe(201);
    expect({
      lost,
      notCompleted,
      completedTwice: outcomes.completedTwice,
      wrongOutput: outcomes.wrongOutput,
      ranTwiceNoLostWorker: counts.ranTwiceNoLostWorker,
    }).toEqual({ lost: 0, notCompleted: 0, completedTwice: 0, wrongOutput: 0, ranTwiceNoLostWorker: 0 });
    expect(accepted.length).toBeGreaterThan(KILL_AFTER);
  });
});
