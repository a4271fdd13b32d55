import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppName } from '@app/contracts';
import { LOAD_TIMINGS, REPLICATED, startFaultSystem, type FaultSystem } from './support/fault-system.js';
import { call, sleep, until } from './support/fault-calls.js';
import { RecordingWorkers } from './support/fault-workers.js';
import { explainNotCompleted, jobOutcomes, ranTwiceWithoutLostWorker } from './support/fault-outcomes.js';
import { ClientOutage } from './support/client-outage.js';
import { NatsCluster } from './support/nats-cluster.js';
import { recordVerdict } from './support/verdict.js';

/**
 * A three-server JetStream cluster with every stream on three replicas (NATS_STREAM_REPLICAS=3), as the prod
 * overlay runs it (deploy/components/nats-cluster), under load from two gateways and two queue-brokers. First a
 * FOLLOWER of the commands stream is SIGKILLed mid-load and, once the load has gone on without it, started again
 * and waited for until its replicas are current; then the server LEADING the commands stream is SIGKILLed and stays
 * down. Submits may be refused (503) while the streams elect new leaders; the apps, given every server's URL, carry
 * on through the other two: no app exits, every submit is accepted again, and every job accepted before, during
 * and after COMPLETES exactly once. The longest stretch in which clients got only refusals is measured.
 */
const APPS = ['gateway', 'queue-broker'] as const satisfies AppName[];
const JOBS = 450;
const FOLLOWER_KILL_AFTER = 60;
const FOLLOWER_BACK_AFTER = 120;
const KILL_AFTER = 240;
const SUBMITTERS = 12;
const CONVERGE_MS = 120_000;

let cluster: NatsCluster;
let fs: FaultSystem;
let workers: RecordingWorkers;

beforeAll(async () => {
  cluster = await NatsCluster.start(3);
  fs = await startFaultSystem('natscluster', {
    apps: APPS,
    endpoints: ['load'],
    natsUrl: cluster.urls,
    env: { ...LOAD_TIMINGS.env, NATS_STREAM_REPLICAS: '3' },
    replicas: REPLICATED,
    appEnv: {
      // A lease given just before the kill is confirmed once the streams have a leader again; on this 2-core
      // machine under load the election has taken up to ~30 s (nats-server 2.9), longer than the usual 12 s
      // grace, and a lease expiring for want of a bus would hand a running job to a second worker.
      'queue-broker': { ...LOAD_TIMINGS['queue-broker'], LEASE_CONFIRM_GRACE_MS: '45000' },
      // A take answered after the election is still handed out (the default 30 s), well within that grace.
      gateway: { ...LOAD_TIMINGS.gateway, JOB_TAKE_HAND_OUT_MS: '30000' },
    },
  });
  workers = new RecordingWorkers(fs, fs.endpoints.load, 2, 8);
}, 180_000);

afterAll(async () => {
  await workers?.stop();
  await fs?.close();
  await cluster?.stop();
});

describe('a NATS server of a three-server cluster dies during load', () => {
  it('the apps carry on through the other two and nothing accepted is lost', async () => {
    const commands = `${fs.system.natsPrefix}_COMMANDS`;
    const replicas = await cluster.replicasOf(commands);
    const accepted: string[] = [];
    const refused: number[] = [];
    let next = 0;
    let killed = '';
    let follower = -1;
    let followerCurrentMs = -1;
    const outage = new ClientOutage();
    let followerPhase: Promise<void> = Promise.resolve();
    let kill: Promise<void> = Promise.resolve();
    const submitter = async () => {
      while (next < JOBS) {
        const n = next++;
        if (n === FOLLOWER_KILL_AFTER) {
          followerPhase = (async () => {
            const leader = await cluster.leaderOf(commands);
            follower = [0, 1, 2].find((i) => i !== cluster.indexOf(leader)) ?? -1;
            await cluster.kill(follower);
          })();
        }
        if (n === FOLLOWER_BACK_AFTER) {
          followerPhase = followerPhase.then(async () => {
            const restartedAt = Date.now();
            cluster.startServer(follower);
            const current = await until(
              () =>
                cluster.replicasOf(commands).then(
                  (r) => (r.current === 3 ? true : null),
                  () => null,
                ),
              60_000,
            );
            followerCurrentMs = current ? Date.now() - restartedAt : -1;
          });
        }
        if (n === KILL_AFTER) {
          // Only with all three current again: a second server down would leave the streams without a quorum.
          kill = followerPhase.then(async () => {
            killed = await cluster.leaderOf(commands);
            await cluster.kill(cluster.indexOf(killed));
          });
        }
        const gateway = fs.gateways[n % fs.gateways.length];
        const startedAt = Date.now();
        const reply = await call('POST', `${gateway}/v2/${fs.endpoints.load}/run`, fs.user.key, {
          input: { phase: 'nats-cluster', n },
        });
        const ok = reply.status === 200 && typeof reply.body?.id === 'string';
        outage.answer(ok, startedAt);
        if (ok) accepted.push(reply.body.id as string);
        else {
          refused.push(reply.status);
          await sleep(100);
        }
      }
    };
    await Promise.all(Array.from({ length: SUBMITTERS }, submitter));
    await kill;
    const killedAt = Date.now();
    const leaderAfter = await cluster.leaderOf(commands);
    // Service on two servers: a new leader for every stream, then every submit accepted again.
    const submit = (n: number) =>
      call('POST', `${fs.gateways[n % fs.gateways.length]}/v2/${fs.endpoints.load}/run`, fs.user.key, {
        input: { phase: 'nats-cluster-after', n },
      });
    const recovered = await until(async () => {
      const reply = await submit(0);
      if (reply.status !== 200) return null;
      accepted.push(reply.body.id as string);
      return true;
    }, 60_000);
    const recoverMs = Date.now() - killedAt;
    const after: string[] = [];
    const refusedAfter: number[] = [];
    for (let n = 0; n < 50; n++) {
      const reply = await submit(n);
      if (reply.status === 200) after.push(reply.body.id as string);
      else refusedAfter.push(reply.status);
    }
    accepted.push(...after);

    const drained = await until(async () => {
      const o = await jobOutcomes(fs.sql, accepted);
      return o.open === 0 && o.missing === 0 ? o : null;
    }, CONVERGE_MS);
    const outcomes = await jobOutcomes(fs.sql, accepted);
    const exited = APPS.filter((app) => !fs.system.isRunning(app));
    const ranTwiceIds = [...workers.runs.entries()].filter(([, runs]) => runs > 1).map(([id]) => id);
    const lost = outcomes.missing + outcomes.open;
    const notCompleted = accepted.length - (outcomes.byStatus.COMPLETED ?? 0);
    const counts = {
      streamReplicas: replicas.configured,
      currentReplicas: replicas.current,
      submitted: JOBS,
      followerKilled: follower >= 0 ? 1 : 0,
      followerCurrentAgainMs: followerCurrentMs,
      longestClientOutageMs: outage.longestOutageMs,
      longestWaitMs: outage.longestWaitMs,
      accepted: accepted.length,
      refusedDuringElection: refused.length,
      acceptedAfter: after.length,
      refusedAfter: refusedAfter.length,
      lost,
      notCompleted,
      completedTwice: outcomes.completedTwice,
      wrongOutput: outcomes.wrongOutput,
      ranTwiceNoLostWorker: await ranTwiceWithoutLostWorker(fs.sql, ranTwiceIds),
      appsExited: exited.length,
      newLeaderElected: leaderAfter !== '' && leaderAfter !== killed ? 1 : 0,
      recoverMs,
    };
    const pass =
      replicas.configured === 3 &&
      follower >= 0 &&
      followerCurrentMs >= 0 &&
      recovered !== null &&
      refusedAfter.length === 0 &&
      drained !== null &&
      exited.length === 0 &&
      lost === 0 &&
      notCompleted === 0 &&
      outcomes.completedTwice === 0 &&
      outcomes.wrongOutput === 0 &&
      counts.ranTwiceNoLostWorker === 0 &&
      counts.newLeaderElected === 1;
    recordVerdict({ name: 'NATS cluster: a follower, then the commands stream leader killed', pass, counts });
    if (notCompleted > 0) {
      console.warn(
        `${notCompleted} accepted job(s) not COMPLETED:\n${await explainNotCompleted(fs, accepted)}`,
      );
    }

    expect(replicas).toEqual({ configured: 3, current: 3 });
    expect(exited).toEqual([]);
    expect(counts.newLeaderElected).toBe(1);
    expect(follower).toBeGreaterThanOrEqual(0);
    expect(followerCurrentMs).toBeGreaterThanOrEqual(0);
    expect(recovered).toBe(true);
    expect(refusedAfter).toEqual([]);
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
