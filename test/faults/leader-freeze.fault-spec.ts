import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RecordingWorkers } from './support/fault-workers.js';
import { startFaultSystem, type FaultSystem, LOAD_TIMINGS, REPLICATED } from './support/fault-system.js';
import { call, sleep, until } from './support/fault-calls.js';
import { jobOutcomes, ranTwiceWithoutLostWorker } from './support/fault-outcomes.js';
import { leaderReplica, leads } from './support/coordination.js';
import { recordVerdict } from './support/verdict.js';

/**
 * A network partition of the sweeper's leader, as a frozen process shows it (SIGSTOP: no packet in or out, its
 * sessions still open), for longer than a leadership check and a command's ack wait, in the middle of load, with
 * two replicas of the gateway and of the queue-broker. The leader is a Postgres advisory lock (ADR 17): the frozen
 * replica keeps it, so the other must never lead while it is frozen nor after it resumes (no split brain); the
 * commands the frozen replica held go to the other after their ack wait and are applied once; every accepted job
 * COMPLETES exactly once.
 */
const JOBS = 400;
const FREEZE_AFTER = 100;
const FREEZE_MS = 8000;
const SUBMITTERS = 12;
const NAME = 'queue-broker/sweeper';
const CONVERGE_MS = 120_000;

let fs: FaultSystem;
let workers: RecordingWorkers;

beforeAll(async () => {
  fs = await startFaultSystem('freeze', {
    apps: ['gateway', 'queue-broker'],
    endpoints: ['load'],
    env: LOAD_TIMINGS.env,
    replicas: REPLICATED,
    appEnv: { 'queue-broker': LOAD_TIMINGS['queue-broker'], gateway: LOAD_TIMINGS.gateway },
  });
  workers = new RecordingWorkers(fs, fs.endpoints.load, 2, 8);
}, 120_000);

afterAll(async () => {
  await workers?.stop();
  await fs?.close();
});

describe('the sweeper leader frozen (SIGSTOP) in the middle of load', () => {
  it('no second leader while it is frozen or after it resumes; every accepted job completes once', async () => {
    const brokers = fs.system.replicas('queue-broker');
    const frozen = await leaderReplica(fs.system, 'queue-broker', NAME);
    expect(frozen).not.toBeNull();
    const others = Array.from({ length: brokers }, (_, r) => r).filter((r) => r !== frozen);
    // Samples of who leads: a split brain is two replicas saying so at once, or another while the leader is held.
    let samples = 0;
    let otherLedWhileFrozen = 0;
    let bothLeading = 0;
    const sample = async (whileFrozen: boolean) => {
      const led = await Promise.all(others.map((r) => leads(fs.system, 'queue-broker', r, NAME)));
      samples++;
      if (whileFrozen && led.some(Boolean)) otherLedWhileFrozen++;
      if (!whileFrozen && led.some(Boolean) && (await leads(fs.system, 'queue-broker', frozen!, NAME))) {
        bothLeading++;
      }
    };

    const accepted: string[] = [];
    const refused: number[] = [];
    let next = 0;
    let partition: Promise<void> = Promise.resolve();
    const submitter = async () => {
      while (next < JOBS) {
        const n = next++;
        if (n === FREEZE_AFTER) {
          partition = (async () => {
            fs.system.signal('queue-broker', 'SIGSTOP', frozen!);
            const until = Date.now() + FREEZE_MS;
            while (Date.now() < until) {
              await sample(true);
              await sleep(100);
            }
            fs.system.signal('queue-broker', 'SIGCONT', frozen!);
            for (let i = 0; i < 30; i++) {
              await sample(false);
              await sleep(100);
            }
          })();
        }
        const gateway = fs.gateways[n % fs.gateways.length];
        const reply = await call('POST', `${gateway}/v2/${fs.endpoints.load}/run`, fs.user.key, {
          input: { phase: 'freeze', n },
        });
        if (reply.status === 200 && typeof reply.body?.id === 'string') accepted.push(reply.body.id);
        else refused.push(reply.status);
      }
    };
    await Promise.all(Array.from({ length: SUBMITTERS }, submitter));
    await partition;

    const drained = await until(async () => {
      const o = await jobOutcomes(fs.sql, accepted);
      return o.open === 0 && o.missing === 0 ? o : null;
    }, CONVERGE_MS);
    const outcomes = await jobOutcomes(fs.sql, accepted);
    const ranTwiceIds = [...workers.runs.entries()].filter(([id, runs]) => runs > 1 && accepted.includes(id));
    const ranTwiceNoLostWorker = await ranTwiceWithoutLostWorker(
      fs.sql,
      ranTwiceIds.map(([id]) => id),
    );
    const stillLeads = await leaderReplica(fs.system, 'queue-broker', NAME, 5000);
    const counts = {
      submitted: JOBS,
      accepted: accepted.length,
      refused: refused.length,
      lost: outcomes.missing + outcomes.open,
      notCompleted: accepted.length - (outcomes.byStatus.COMPLETED ?? 0),
      completedTwice: outcomes.completedTwice,
      wrongOutput: outcomes.wrongOutput,
      ranTwiceNoLostWorker,
      samples,
      otherLedWhileFrozen,
      bothLeading,
      leaderAfter: stillLeads === frozen ? 1 : 0,
      freezeMs: FREEZE_MS,
    };
    const pass =
      drained !== null &&
      accepted.length > JOBS / 2 &&
      counts.lost === 0 &&
      counts.notCompleted === 0 &&
      counts.completedTwice === 0 &&
      counts.wrongOutput === 0 &&
      ranTwiceNoLostWorker === 0 &&
      otherLedWhileFrozen === 0 &&
      bothLeading === 0;
    recordVerdict({ name: `sweeper leader frozen ${FREEZE_MS / 1000} s (SIGSTOP)`, pass, counts });

    expect(accepted.length).toBeGreaterThan(JOBS / 2);
    expect({
      lost: counts.lost,
      notCompleted: counts.notCompleted,
      completedTwice: counts.completedTwice,
      wrongOutput: counts.wrongOutput,
      ranTwiceNoLostWorker,
      otherLedWhileFrozen,
      bothLeading,
    }).toEqual({
      lost: 0,
      notCompleted: 0,
      completedTwice: 0,
      wrongOutput: 0,
      ranTwiceNoLostWorker: 0,
      otherLedWhileFrozen: 0,
      bothLeading: 0,
    });
  });
});
