import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { HostChangedEvent, HostDetailView, PodV2View } from '@app/contracts';
import { keysCli, type TestKey } from '../support/accounts.js';
import { leaderReplica } from './support/coordination.js';
import {
  A100,
  LOAD_TIMINGS,
  REPLICATED,
  startFaultSystem,
  type FaultSystem,
} from './support/fault-system.js';
import { call, sleep, until } from './support/fault-calls.js';
import { placementLedger } from './support/fault-outcomes.js';
import { recordVerdict } from './support/verdict.js';

/**
 * A host drained while users' pods and a cluster's members run on it (docs/adr/0039-live-fleet.md), with two
 * replicas of every app it runs (simulated runtime, the fault system's 4 hosts x 8 A100): two 1-GPU pods and a
 * cluster of two 2-GPU members packed on one host, which keeps free GPUs; clients create and delete 1-GPU pods
 * side by side (best fit would put them on that host); the host is drained through the second gateway with a
 * 10 s deadline, and the cluster-scheduler replica leading its timers (the one that expires drains) gets SIGKILL
 * right after the drain was sent, restarted a second later. Afterwards: no pod whose create was sent after the
 * drain's answer was placed on the host; the drain's answer, the host's view and its host-changed event list the
 * cluster's members among its pods, the users' pods show the notice with the deadline; at the deadline every pod
 * left is EXITED HOST_DRAINED, the host is drained (no pods) and its removal leaves it GONE; the ledger adds up.
 */
const DEADLINE_S = 10;
const CLIENTS = 4;
/** How long the clients go on creating after the drain's answer. */
const AFTER_MS = 6000;
const TIMERS = 'cluster-scheduler/leader-timers';

let fs: FaultSystem;
let operator: TestKey;

beforeAll(async () => {
  fs = await startFaultSystem('drain', {
    apps: ['gateway', 'cluster-scheduler', 'pod-lifecycle'],
    endpoints: [],
    env: LOAD_TIMINGS.env,
    replicas: REPLICATED,
    appEnv: {
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '300', SIM_START_MS: '300' },
      'cluster-scheduler': { FLEET_DRAIN_CHECK_MS: '500' },
    },
  });
  operator = JSON.parse(
    await keysCli(fs.db.url, ['key', 'create', fs.user.userId, '--scope', 'operator', '--json']),
  ) as TestKey;
}, 120_000);

afterAll(async () => {
  await fs?.close();
});

const podBody = (name: string) => ({
  name,
  image: 'runpod/base:0.6.2',
  gpu: { id: A100, count: 1 },
  disk: 10,
});
const gateway = (n: number) => fs.gateways[n % fs.gateways.length];
const ops = <T>(method: string, path: string, n = 0) => call<T>(method, `${gateway(n)}${path}`, operator.key);

async function podRows(
  ids: readonly string[],
): Promise<{ id: string; status: string; host_id: string | null; status_reason: string | null }[]> {
  const { rows } = await fs.sql.query<{
    id: string;
    status: string;
    host_id: string | null;
    status_reason: string | null;
  }>('SELECT id, status, host_id, status_reason FROM pod_lifecycle.pods WHERE id = ANY($1) ORDER BY id', [
    ids,
  ]);
  return rows;
}

interface Create {
  sentAt: number;
  status: number;
  id?: string;
}

describe('a host drained while pods and a cluster run on it, a scheduler replica killed', () => {
  it('places nothing on it after the answer, reports the members, stops what is left at the deadline', async () => {
    // Two users' pods and a cluster's two members packed on one host (best fit), 2 of its 8 GPUs left free.
    const users: string[] = [];
    for (const name of ['notebook-a', 'notebook-b']) {
      const reply = await call('POST', `${gateway(0)}/v2/pods`, fs.user.key, podBody(name));
      expect(reply.status).toBe(201);
      users.push(reply.body.id as string);
    }
    const cluster = await call('POST', `${gateway(0)}/v2/clusters`, fs.user.key, {
      name: 'trainer',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 2, podCount: 2 },
    });
    expect(cluster.status).toBe(201);
    const placed = await until(async () => {
      const { rows } = await fs.sql.query<{ id: string; status: string; host_id: string | null }>(
        `SELECT id, status, host_id FROM pod_lifecycle.pods WHERE id = ANY($1) OR cluster_id = $2 ORDER BY id`,
        [users, cluster.body.id],
      );
      return rows.length === 4 && rows.every((r) => r.status === 'RUNNING') ? rows : null;
    }, 60_000);
    expect(placed).not.toBeNull();
    const host = placed!.find((r) => r.id === users[0])!.host_id!;
    const members = placed!.filter((r) => !users.includes(r.id)).map((r) => r.id);
    expect(placed!.map((r) => r.host_id)).toEqual(placed!.map(() => host));

    // Clients create 1-GPU pods and delete each a moment later, so the host keeps free GPUs best fit would take.
    const creates: Create[] = [];
    const deleted = new Set<string>();
    let churning = true;
    let sent = 0;
    const client = async () => {
      while (churning) {
        const n = sent++;
        const sentAt = Date.now();
        const reply = await call('POST', `${gateway(n)}/v2/pods`, fs.user.key, podBody(`churn-${n}`));
        const create: Create = { sentAt, status: reply.status, id: reply.body?.id as string | undefined };
        creates.push(create);
        if (reply.status !== 201 || !create.id) {
          await sleep(200);
          continue;
        }
        await sleep(300);
        const gone = await call('DELETE', `${gateway(n + 1)}/v2/pods/${create.id}`, fs.user.key);
        if (gone.status === 204) deleted.add(create.id);
      }
    };
    const churn = Promise.all(Array.from({ length: CLIENTS }, client));
    await sleep(2000);

    // The drain through the second gateway; the replica leading the timers killed right after it was sent.
    const leader = (await leaderReplica(fs.system, 'cluster-scheduler', TIMERS, 5000)) ?? 0;
    const drainSentAt = Date.now();
    const drain = call<HostDetailView>('POST', `${gateway(1)}/v2/fleet/hosts/${host}/drain`, operator.key, {
      reason: 'firmware',
      deadlineSeconds: DEADLINE_S,
    });
    await sleep(10);
    await fs.system.kill('cluster-scheduler', 'SIGKILL', leader);
    const drained = await drain;
    const answeredAt = Date.now();
    // Right after the answer: the host's view; the users' pods told (pod-lifecycle answers the drain's event, so
    // the notice follows the answer shortly: each pod watched until it shows one, or is stopped without).
    const view = await ops<HostDetailView>('GET', `/v2/fleet/hosts/${host}`);
    const watching = Promise.all(
      users.map(async (id) => {
        const seen = await until(
          async () => {
            const pod = await call<PodV2View>('GET', `${gateway(0)}/v2/pods/${id}`, fs.user.key);
            return pod.body?.hostNotice || pod.body?.status === 'EXITED' ? pod.body : null;
          },
          20_000,
          100,
        );
        return { view: seen, afterMs: Date.now() - answeredAt };
      }),
    );
    await sleep(1000);
    await fs.system.restart('cluster-scheduler', {}, leader);
    await sleep(Math.max(0, answeredAt + AFTER_MS - Date.now()));
    churning = false;
    await churn;
    const notices = await watching;

    const { rows: events } = await fs.sql.query<{ payload: HostChangedEvent }>(
      `SELECT payload FROM cluster_scheduler.outbox
        WHERE subject = 'fleet.evt.host-changed' AND payload->>'hostId' = $1 AND payload->>'state' = 'DRAINING'`,
      [host],
    );
    // At the deadline: what is left is stopped, the host drained, then removed.
    const empty = await until(
      async () => {
        const h = await ops<HostDetailView>('GET', `/v2/fleet/hosts/${host}`);
        return h.body?.drained === true && h.body.pods === 0 ? h.body : null;
      },
      (DEADLINE_S + 60) * 1000,
    );
    const emptyAt = Date.now();
    const removed = await ops<HostDetailView>('DELETE', `/v2/fleet/hosts/${host}`, 1);
    const { rows: onHost } = await fs.sql.query<{ id: string; status: string; status_reason: string | null }>(
      'SELECT id, status, status_reason FROM pod_lifecycle.pods WHERE host_id = $1 ORDER BY id',
      [host],
    );
    const stoppedDrained = onHost.filter(
      (p) => p.status === 'EXITED' && /^HOST_DRAINED: host \S+ was drained/.test(p.status_reason ?? ''),
    );
    const leftUnstopped = onHost.filter((p) => !stoppedDrained.includes(p) && !deleted.has(p.id));
    const afterAnswer = creates.filter((c) => c.sentAt > answeredAt && c.status === 201 && c.id);
    const afterRows = await podRows(afterAnswer.map((c) => c.id!));
    const beforeRows = await podRows(
      creates.filter((c) => c.sentAt <= answeredAt && c.status === 201 && c.id).map((c) => c.id!),
    );
    const ledger = await placementLedger(fs.sql);

    const listed = (ids: readonly string[], pods: readonly { podId: string }[] | undefined) =>
      ids.filter((id) => pods?.some((p) => p.podId === id)).length;
    const deadline = drained.body?.drainDeadline ?? null;
    const noticed = notices.filter(
      (n) =>
        /^HOST_DRAINING: host \S+ drains: firmware; stopped at \S+Z$/.test(n.view?.hostNotice ?? '') &&
        n.view?.stopDeadline === deadline,
    ).length;
    const counts = {
      creates: creates.length,
      createdBeforeAnswer: beforeRows.length,
      createdBeforeOnHost: beforeRows.filter((r) => r.host_id === host).length,
      createdAfterAnswer: afterRows.length,
      placedOnHostAfterAnswer: afterRows.filter((r) => r.host_id === host).length,
      membersInAnswer: listed(members, drained.body?.podsOnHost),
      membersInView: listed(members, view.body?.podsOnHost),
      membersInEvent: listed(members, events[0]?.payload.pods),
      drainEvents: events.length,
      drainAnswerMs: answeredAt - drainSentAt,
      drainedAfterDeadlineMs: deadline ? emptyAt - Date.parse(deadline) : -1,
      usersNoticed: noticed,
      noticeAfterAnswerMs: Math.max(...notices.map((n) => n.afterMs)),
      stoppedDrained: stoppedDrained.length,
      leftUnstopped: leftUnstopped.length,
      removedGone: removed.status === 200 && removed.body?.state === 'GONE' ? 1 : 0,
      gpuDoubleBooked: ledger.gpuDoubleBooked + ledger.ledgerMismatches,
      portProblems: ledger.portProblems,
    };
    const usersAndMembersDrained = [...users, ...members].every((id) =>
      stoppedDrained.some((p) => p.id === id),
    );
    const pass =
      drained.status === 200 &&
      empty !== null &&
      counts.createdAfterAnswer > 0 &&
      counts.placedOnHostAfterAnswer === 0 &&
      counts.membersInAnswer === members.length &&
      counts.membersInView === members.length &&
      counts.membersInEvent === members.length &&
      counts.drainEvents === 1 &&
      counts.usersNoticed === users.length &&
      usersAndMembersDrained &&
      counts.leftUnstopped === 0 &&
      counts.removedGone === 1 &&
      counts.gpuDoubleBooked === 0 &&
      counts.portProblems === 0;
    recordVerdict({
      name: 'a host drained under pod creates, cluster-scheduler timer leader killed',
      pass,
      counts,
      detail: pass
        ? undefined
        : [
            `drain answered ${drained.status} at ${new Date(answeredAt).toISOString()}, deadline ${deadline}`,
            ...notices.map(
              (n) => `user pod ${n.view?.status}: notice ${n.view?.hostNotice} until ${n.view?.stopDeadline}`,
            ),
            ...leftUnstopped.map((p) => `left on the host: ${p.id} ${p.status} ${p.status_reason}`),
            `removal answered ${removed.status} ${JSON.stringify(removed.body?.state)}`,
          ],
    });

    expect(drained.status).toBe(200);
    expect(counts).toEqual({
      ...counts,
      placedOnHostAfterAnswer: 0,
      membersInAnswer: members.length,
      membersInView: members.length,
      membersInEvent: members.length,
      drainEvents: 1,
      usersNoticed: users.length,
      leftUnstopped: 0,
      removedGone: 1,
      gpuDoubleBooked: 0,
      portProblems: 0,
    });
    expect(counts.createdAfterAnswer).toBeGreaterThan(0);
    expect(empty).not.toBeNull();
    expect(usersAndMembersDrained).toBe(true);
  });
});
