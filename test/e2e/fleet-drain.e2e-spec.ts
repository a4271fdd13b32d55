import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Subjects, type PodV2View, type PodView } from '@app/contracts';
import { A100 } from './clusters-fixtures.js';
import { FleetSystem } from './fleet-drain.e2e-helpers.js';
import { sleep, until } from './pods.e2e-helpers.js';

/**
 * A host's state and its consequences end to end (docs/adr/0039-live-fleet.md): the five apps, the local runtime
 * running a real worker process per worker pod (the simulated one runs none, and jobs need workers that take them),
 * three hosts of four A100s. A drain (fleet.cmd.drain on the bus) replaces the host's workers on the other hosts
 * before they are terminated, while jobs keep coming (none lost), and the user's pod there shows the notice, then is
 * stopped HOST_DRAINED at the short deadline. A host reported unhealthy under a job load: its workers' jobs are
 * queued again and complete on the replacements, its pods end ERROR HOST_UNHEALTHY.
 */

const DEADLINE_S = 12;

let fs: FleetSystem;
let alice: FleetSystem['alice'];

beforeAll(async () => {
  fs = await FleetSystem.start();
  alice = fs.alice;
}, 180_000);

afterAll(async () => {
  await fs?.stop();
});

describe('a drained host', () => {
  it('has its workers replaced elsewhere before they stop, loses no job, and tells then stops the user pod', async () => {
    // Everything lands on h-a while the others are cordoned.
    await fs.fleet(Subjects.fleet.cordon, { hostId: 'h-b', reason: 'test setup' });
    await fs.fleet(Subjects.fleet.cordon, { hostId: 'h-c', reason: 'test setup' });
    const endpointId = await fs.createEndpoint('drained');
    const userPod = await alice<PodV2View>('POST', '/v2/pods', {
      name: 'notebook',
      image: 'test/idle',
      gpu: { id: A100, count: 1 },
      disk: 10,
    });
    expect(userPod.status).toBe(201);
    const originals = await until(
      'two workers on h-a',
      async () => {
        const pods = await fs.workerPods(endpointId);
        return pods.length === 2 && pods.every((p) => p.status === 'RUNNING' && p.host_id === 'h-a')
          ? pods
          : null;
      },
      60_000,
    );
    await until(
      'the user pod running',
      async () => (await alice<PodView>('GET', `/v1/pods/${userPod.body.id}`)).body.status === 'RUNNING',
      30_000,
    );
    await fs.fleet(Subjects.fleet.uncordon, { hostId: 'h-b' });
    await fs.fleet(Subjects.fleet.uncordon, { hostId: 'h-c' });

    const load = fs.submit(endpointId, 30, 200, 150);
    load.catch(() => undefined); // awaited below; a failure before then is the test's own
    await sleep(500);
    await fs.fleet(Subjects.fleet.drain, {
      hostId: 'h-a',
      reason: 'kernel upgrade',
      deadlineSeconds: DEADLINE_S,
    });

    // The user's pod is told, on both of its views; the workers are not.
    const told = await until(
      'the notice',
      async () => {
        const view = (await alice<PodV2View>('GET', `/v2/pods/${userPod.body.id}`)).body;
        return view.hostNotice ? view : null;
      },
      20_000,
    );
    expect(told.hostNotice).toMatch(/^HOST_DRAINING: host h-a drains: kernel upgrade; stopped at \S+Z$/);
    expect(told.stopDeadline).toEqual(expect.any(String));
    expect(told.status).toBe('RUNNING');
    const v1 = (await alice<PodView>('GET', `/v1/pods/${userPod.body.id}`)).body;
    expect(v1).toMatchObject({ hostNotice: told.hostNotice, stopDeadline: told.stopDeadline });

    // Replaced on the other hosts, then the originals terminated.
    const replaced = await until(
      'the workers replaced',
      async () => {
        const pods = await fs.workerPods(endpointId);
        const gone = pods.filter((p) => originals.some((o) => o.id === p.id) && p.status === 'TERMINATED');
        const running = pods.filter((p) => p.status === 'RUNNING' && p.host_id !== 'h-a');
        return gone.length === 2 && running.length === 2 ? pods : null;
      },
      60_000,
    );
    expect(replaced.filter((p) => p.status === 'RUNNING').map((p) => p.host_id)).not.toContain('h-a');
    const { rows: events } = await fs.sql.query<{ action: string; pod_id: string; reason: string; at: Date }>(
      `SELECT action, pod_id, reason, at FROM endpoint_autoscaler.scaling_events
        WHERE endpoint_id = $1 AND action IN ('create', 'terminate') ORDER BY at, id`,
      [endpointId],
    );
    const terminations = events.filter((e) => e.action === 'terminate');
    expect(terminations.map((e) => e.pod_id).sort()).toEqual(originals.map((o) => o.id).sort());
    for (const t of terminations) expect(t.reason).toMatch(/^its host drains/);
    // Two creates after the first two (the minimum), both before the first termination.
    const creates = events.filter((e) => e.action === 'create');
    expect(creates.length).toBeGreaterThanOrEqual(4);
    expect(creates[3].at.getTime()).toBeLessThanOrEqual(terminations[0].at.getTime());

    const jobs = await fs.finished(endpointId, await load);
    expect(jobs.filter((job) => job.status !== 'COMPLETED')).toEqual([]);

    // At the deadline the user's pod is stopped, its notice replaced by the reason.
    const stopped = await until(
      'the user pod stopped',
      async () => {
        const view = (await alice<PodV2View>('GET', `/v2/pods/${userPod.body.id}`)).body;
        return view.status === 'EXITED' ? view : null;
      },
      (DEADLINE_S + 20) * 1000,
    );
    expect(stopped).toMatchObject({ desiredStatus: 'EXITED', hostNotice: null, stopDeadline: null });
    expect(stopped.statusReason).toMatch(/^HOST_DRAINED: host h-a was drained/);
  }, 240_000);
});

describe('a host reported unhealthy under a job load', () => {
  it("queues its workers' jobs again, which complete elsewhere; its pods end ERROR HOST_UNHEALTHY", async () => {
    const endpointId = await fs.createEndpoint('sick');
    const first = await until(
      'two workers',
      async () => {
        const pods = await fs.workerPods(endpointId);
        return pods.length === 2 && pods.every((p) => p.status === 'RUNNING') ? pods : null;
      },
      60_000,
    );
    const sick = first[0].host_id!;
    const onSick = first.filter((p) => p.host_id === sick);

    const load = fs.submit(endpointId, 12, 1500, 50);
    load.catch(() => undefined); // awaited below
    // Jobs in progress on the workers of the host when it is reported.
    await until(
      'a job in progress on the host',
      async () => {
        const { rows } = await fs.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM queue_broker.jobs WHERE status = 'IN_PROGRESS' AND lease_worker_id = ANY($1)`,
          [onSick.map((p) => p.id)],
        );
        return rows[0].n > 0;
      },
      30_000,
    );
    await fs.fleet(Subjects.fleet.reportHealth, {
      hostId: sick,
      healthy: false,
      source: 'operator',
      code: 'XID',
      reason: 'Xid 79 on GPU 0 (GPU has fallen off the bus)',
      gpuIndex: 0,
    });

    for (const pod of onSick) {
      const view = await until(
        `pod ${pod.id} failed`,
        async () => {
          const v = (await alice<PodView>('GET', `/v1/pods/${pod.id}`)).body;
          return v.status === 'ERROR' || v.status === 'TERMINATED' ? v : null;
        },
        20_000,
      );
      // The autoscaler terminates it right after: the reason it saw is in its scaling event (below).
      expect(view.status === 'ERROR' ? view.statusReason : 'terminated').toMatch(
        /^(HOST_UNHEALTHY: host |terminated)/,
      );
    }
    // The reason the autoscaler saw on each failed pod (it terminates them at once, then replaces them).
    const reasons = await until('the failed workers terminated', async () => {
      const { rows } = await fs.sql.query<{ reason: string }>(
        `SELECT reason FROM endpoint_autoscaler.scaling_events
          WHERE endpoint_id = $1 AND pod_id = ANY($2) AND action = 'terminate'`,
        [endpointId, onSick.map((p) => p.id)],
      );
      return rows.length === onSick.length ? rows : null;
    });
    expect(reasons).toHaveLength(onSick.length);
    for (const r of reasons) {
      expect(r.reason).toMatch(/^worker pod failed: HOST_UNHEALTHY: host \S+ is unhealthy \(XID\)/);
    }

    const jobs = await fs.finished(endpointId, await load);
    expect(jobs.filter((job) => job.status !== 'COMPLETED')).toEqual([]);
    // Those that ran on the sick host's workers were queued again and completed elsewhere.
    const { rows: requeued } = await fs.sql.query<{ job_id: string }>(
      `SELECT DISTINCT job_id FROM queue_broker.job_attempts WHERE worker_id = ANY($1) AND outcome = 'WORKER_LOST'`,
      [onSick.map((p) => p.id)],
    );
    expect(requeued.length).toBeGreaterThan(0);
    for (const { job_id } of requeued) {
      const job = jobs.find((j) => j.id === job_id)!;
      expect(onSick.map((p) => p.id)).not.toContain(job.output?.workerId);
    }
    const after = await fs.workerPods(endpointId);
    const running = after.filter((p) => p.status === 'RUNNING');
    expect(running).toHaveLength(2);
    expect(running.map((p) => p.host_id)).not.toContain(sick);
  }, 240_000);
});
