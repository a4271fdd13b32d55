import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { HostDetailView } from '@app/contracts';
import { A100 } from '../e2e/clusters-fixtures.js';
import { call, sleep, until } from './support/fault-calls.js';
import { jobOutcomes, placementLedger } from './support/fault-outcomes.js';
import { podRow, startLocalFleet, workerPods, type LocalFleet } from './support/local-fleet.js';
import { recordVerdict } from './support/verdict.js';

/**
 * A host goes unhealthy under a job load (docs/adr/0039-live-fleet.md): two replicas of every app but pod-lifecycle
 * (the local runtime runs one, ADR 6), real worker processes under its local runtime, 3 hosts x 8 A100. The
 * endpoint's workers (best fit packs them) and a user's pod land together on one host; while jobs of 250 ms keep
 * coming over both gateways, a GPU of that host fails (`gpu-faults`, Xid 79) and a cluster-scheduler replica gets
 * SIGKILL right after (restarted a second later). Afterwards: every accepted job COMPLETED exactly once; the
 * host's pods went ERROR HOST_UNHEALTHY (the workers' reason as the autoscaler saw it, it terminates them at once);
 * the workers run on other hosts and never more than workersMax at once; nothing was placed on the host after the
 * report (reservations and pods), a pod created after it runs elsewhere; the ledger adds up.
 */
const WORKERS_MIN = 3;
const WORKERS_MAX = 4;
const SUBMITTERS = 2;
const JOB_MS = 250;
const GAP_MS = 300;
/** How long the load goes on after the fault. */
const AFTER_MS = 15_000;
const CONVERGE_MS = 120_000;
const HOSTS = ['unh-host-1', 'unh-host-2', 'unh-host-3'];

let lf: LocalFleet;

async function userPod(name: string): Promise<string> {
  const reply = await lf.api<{ id: string }>('POST', '/v2/pods', {
    name,
    image: 'test/idle',
    gpu: { id: A100, count: 1 },
    disk: 10,
  });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

beforeAll(async () => {
  lf = await startLocalFleet('fleet-unhealthy', HOSTS, { workersMin: WORKERS_MIN, workersMax: WORKERS_MAX });
}, 240_000);

afterAll(async () => {
  await lf?.close();
});

describe('a host goes unhealthy under a job load, a scheduler replica killed', () => {
  it('loses no job, replaces its workers elsewhere, places nothing on it, keeps the ledger whole', async () => {
    // The workers start together on one host (best fit), and a user's pod joins them there.
    const originals = await until(async () => {
      const pods = (await workerPods(lf)).filter((p) => p.status === 'RUNNING');
      return pods.length >= WORKERS_MIN ? pods : null;
    }, 90_000);
    expect(originals).not.toBeNull();
    const sick = originals![0].host_id!;
    expect(originals!.map((p) => p.host_id)).toEqual(originals!.map(() => sick));
    const before = await userPod('before');
    const beforeRow = await until(async () => {
      const row = await podRow(lf, before);
      return row?.status === 'RUNNING' ? row : null;
    }, 30_000);
    expect(beforeRow?.host_id).toBe(sick);

    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const pods = await workerPods(lf).catch(() => []);
        // A failed worker (ERROR) is terminated by the autoscaler, not counted against workersMax.
        const live = pods.filter((p) => p.desired_status === 'RUNNING' && p.status !== 'ERROR');
        peak = Math.max(peak, live.length);
        await sleep(100);
      }
    })();
    const accepted: string[] = [];
    let submitting = true;
    let sent = 0;
    const submitter = async () => {
      while (submitting) {
        const n = sent++;
        const reply = await lf.api<{ id: string }>(
          'POST',
          `/v2/${lf.endpointId}/run`,
          { input: { n, sleepMs: JOB_MS } },
          n,
        );
        if (reply.status === 200 && typeof reply.body?.id === 'string') accepted.push(reply.body.id);
        await sleep(GAP_MS);
      }
    };
    const load = Promise.all(Array.from({ length: SUBMITTERS }, submitter));

    // The workers serve: jobs completed on them.
    const serving = await until(async () => {
      const { rows } = await lf.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM queue_broker.jobs WHERE id = ANY($1) AND status = 'COMPLETED'`,
        [accepted],
      );
      return rows[0].n >= 10;
    }, 60_000);
    expect(serving).toBe(true);

    // The fault, through the second gateway; a scheduler replica killed right after it was sent.
    const fault = call<HostDetailView>(
      'POST',
      `${lf.gateways[1 % lf.gateways.length]}/v2/fleet/hosts/${sick}/gpu-faults`,
      lf.operator.key,
      { kind: 'XID', gpuIndex: 0, xid: 79 },
    );
    await sleep(10);
    await lf.system.kill('cluster-scheduler', 'SIGKILL', 0);
    const faultReply = await fault;
    await sleep(1000);
    await lf.system.restart('cluster-scheduler', {}, 0);
    const unhealthy = await until(async () => {
      const host = await call<HostDetailView>(
        'GET',
        `${lf.gateways[0]}/v2/fleet/hosts/${sick}`,
        lf.operator.key,
      );
      return host.body?.state === 'UNHEALTHY' ? host.body : null;
    }, 30_000);
    expect(unhealthy?.health).toMatchObject({ healthy: false, code: 'XID', source: 'runtime', gpuIndex: 0 });
    const reportedAt = new Date(unhealthy!.health.since!);

    // A pod created after the report runs elsewhere.
    const after = await userPod('after');
    const afterRow = await until(async () => {
      const row = await podRow(lf, after);
      return row?.status === 'RUNNING' ? row : null;
    }, 30_000);

    await sleep(AFTER_MS);
    submitting = false;
    await load;
    const drained = await until(async () => {
      const o = await jobOutcomes(lf.sql, accepted);
      return o.open === 0 && o.missing === 0 ? o : null;
    }, CONVERGE_MS);
    // The workers replaced: at least workersMin run, none on the sick host.
    const replaced = await until(async () => {
      const running = (await workerPods(lf)).filter((p) => p.status === 'RUNNING');
      return running.length >= WORKERS_MIN && running.every((p) => p.host_id !== sick) ? running : null;
    }, CONVERGE_MS);
    sampling = false;
    await sampler;

    const outcomes = await jobOutcomes(lf.sql, accepted);
    const { rows: echo } = await lf.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM queue_broker.jobs
        WHERE id = ANY($1) AND status = 'COMPLETED' AND output->'echo' IS DISTINCT FROM input`,
      [accepted],
    );
    // The sick host's workers went ERROR HOST_UNHEALTHY: the reason the autoscaler terminated them with.
    const { rows: terminations } = await lf.sql.query<{ pod_id: string; reason: string }>(
      `SELECT pod_id, reason FROM endpoint_autoscaler.scaling_events
        WHERE endpoint_id = $1 AND pod_id = ANY($2) AND action = 'terminate'`,
      [lf.endpointId, originals!.map((p) => p.id)],
    );
    const workersFailedUnhealthy = originals!.filter((o) =>
      terminations.some(
        (t) =>
          t.pod_id === o.id && /^worker pod failed: HOST_UNHEALTHY: host \S+ is unhealthy/.test(t.reason),
      ),
    ).length;
    const beforeEnd = await podRow(lf, before);
    const { rows: placedAfter } = await lf.sql.query<{ n: number }>(
      `SELECT (SELECT count(*)::int FROM cluster_scheduler.reservations WHERE host_id = $1 AND created_at > $2)
            + (SELECT count(*)::int FROM pod_lifecycle.pods WHERE host_id = $1 AND created_at > $2) AS n`,
      [sick, reportedAt],
    );
    const { rows: requeued } = await lf.sql.query<{ n: number }>(
      `SELECT count(DISTINCT job_id)::int AS n FROM queue_broker.job_attempts
        WHERE worker_id = ANY($1) AND outcome = 'WORKER_LOST'`,
      [originals!.map((p) => p.id)],
    );
    const ledger = await placementLedger(lf.sql);
    const counts = {
      accepted: accepted.length,
      completed: outcomes.byStatus.COMPLETED ?? 0,
      lost: outcomes.missing + outcomes.open,
      completedTwice: outcomes.completedTwice,
      wrongOutput: echo[0].n,
      requeued: requeued[0].n,
      sickWorkers: originals!.length,
      workersFailedUnhealthy,
      replacements: replaced?.length ?? -1,
      peakWorkers: peak,
      placedOnSickAfter: placedAfter[0].n,
      faultAnswered: faultReply.status,
      gpuDoubleBooked: ledger.gpuDoubleBooked + ledger.ledgerMismatches,
    };
    const userPodUnhealthy =
      beforeEnd?.status === 'ERROR' && /^HOST_UNHEALTHY: host /.test(beforeEnd.status_reason ?? '');
    const afterElsewhere = afterRow !== null && afterRow.host_id !== sick;
    const pass =
      drained !== null &&
      replaced !== null &&
      counts.lost === 0 &&
      counts.completed === counts.accepted &&
      counts.completedTwice === 0 &&
      counts.wrongOutput === 0 &&
      workersFailedUnhealthy === originals!.length &&
      userPodUnhealthy &&
      afterElsewhere &&
      peak <= WORKERS_MAX &&
      counts.placedOnSickAfter === 0 &&
      counts.gpuDoubleBooked === 0;
    recordVerdict({
      name: 'a host unhealthy (Xid 79) under a job load, cluster-scheduler 1/2 killed',
      pass,
      counts,
      detail: pass
        ? undefined
        : [
            `the fault answered ${faultReply.status}; the sick host ${sick}`,
            `user pod before: ${beforeEnd?.status} ${beforeEnd?.status_reason}`,
            `user pod after: on ${afterRow?.host_id ?? '(not running)'}`,
            ...terminations.map((t) => `terminated ${t.pod_id}: ${t.reason}`),
          ],
    });

    expect(counts).toEqual({
      ...counts,
      completed: accepted.length,
      lost: 0,
      completedTwice: 0,
      wrongOutput: 0,
      workersFailedUnhealthy: originals!.length,
      placedOnSickAfter: 0,
      gpuDoubleBooked: 0,
    });
    expect(accepted.length).toBeGreaterThan(30);
    expect(beforeEnd).toMatchObject({
      status: 'ERROR',
      status_reason: expect.stringMatching(/^HOST_UNHEALTHY: /),
    });
    expect(afterRow?.host_id).not.toBe(sick);
    expect(replaced).not.toBeNull();
    expect(peak).toBeLessThanOrEqual(WORKERS_MAX);
  });
});
