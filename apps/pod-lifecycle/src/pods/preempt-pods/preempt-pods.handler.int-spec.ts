import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DomainError,
  ErrorCode,
  PREEMPTED_REASON,
  PodStatus,
  Subjects,
  type PodView,
  type PreemptPodsCommand,
  type ReservePodCommand,
} from '@app/contracts';
import { ALICE, BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SYSTEM, reserve } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `pod.cmd.preempt` (what pod-lifecycle records when it hears the scheduler's `placement.evt.preempted`) over
 * pod-lifecycle's real schema, the scheduler stood in for: live pods end EXITED as a stop leaves them, with the
 * preemptor in their reason; the rest are left alone; a later start is an ordinary resume.
 */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('pod_preempt');
  pods = app.harness;
});

afterAll(async () => {
  await app?.stop();
});

const PREEMPTOR = { accountId: 'team-research', workloadId: 'pod-urgent', priority: 'high' as const };
const REASON = `${PREEMPTED_REASON}: by team-research for pod-urgent (high, priority)`;
const at = (minute: number) => ({ actor: SYSTEM, issuedAt: `2026-03-01T12:${minute}:00.000Z` });

const preempt = (workloads: PreemptPodsCommand['workloads'], minute = 30, commandId?: string) =>
  pods.send(Subjects.pod.preempt, { preemptor: PREEMPTOR, workloads }, { ...at(minute), commandId });
const workload = (ownerId: string, podIds: string[], clusterId: string | null = null) => ({
  ownerId,
  podIds,
  clusterId,
  reason: 'priority' as const,
});
const get = (podId: string) => pods.query(Subjects.pod.get, { podId });
const row = async (podId: string) => {
  const [pod] = await pods.dataSource.query<{ disk_epoch: number; status_reason: string | null }[]>(
    'SELECT disk_epoch, status_reason FROM pod_lifecycle.pods WHERE id = $1',
    [podId],
  );
  return pod;
};

/** A pod of ALICE's brought to `status` (PROVISIONING as created; RUNNING as the runtime reports it; or by an action). */
async function podIn(name: string, status: PodStatus): Promise<PodView> {
  const pod = await app.createPod(name);
  if (status === PodStatus.Running || status === PodStatus.Starting) {
    const generation = await app.generation(pod.id);
    await pods.send(Subjects.pod.observe, { podId: pod.id, generation, status }, { actor: SYSTEM });
  }
  if (status === PodStatus.Exited) await pods.send(Subjects.pod.stop, { podId: pod.id });
  if (status === PodStatus.Terminated) await pods.send(Subjects.pod.terminate, { podId: pod.id });
  return get(pod.id);
}

describe('preempting pods (pod.cmd.preempt)', () => {
  it('stops every live pod named (disk kept, wanted EXITED, the preemptor in its reason), one status event each', async () => {
    const live = [
      await podIn('p-provisioning', PodStatus.Provisioning),
      await podIn('p-starting', PodStatus.Starting),
      await podIn('p-running', PodStatus.Running),
    ];
    const epochs = await Promise.all(live.map(async (pod) => (await row(pod.id)).disk_epoch));
    const events = (await pods.events(Subjects.pod.statusChanged)).length;
    const result = await preempt([
      workload(
        ALICE.userId,
        live.map((pod) => pod.id),
      ),
    ]);
    expect(new Set(result.podIds)).toEqual(new Set(live.map((pod) => pod.id)));
    for (const [i, pod] of live.entries()) {
      expect(await get(pod.id)).toMatchObject({
        status: PodStatus.Exited,
        desiredStatus: PodStatus.Exited,
        statusReason: REASON,
        lastStatusChange: '2026-03-01T12:30:00.000Z',
      });
      expect((await row(pod.id)).disk_epoch).toBe(epochs[i]);
    }
    const changed = (await pods.events(Subjects.pod.statusChanged)).slice(events).map((e) => e.payload);
    // In pod id order, the order the command locks them in.
    const byId = [...live].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(changed).toEqual(
      byId.map((pod) =>
        expect.objectContaining({ podId: pod.id, status: PodStatus.Exited, previousStatus: pod.status }),
      ),
    );
  });

  it('is idempotent: sent again (a redelivery with a new id, or the same id) it changes nothing', async () => {
    const pod = await podIn('p-twice', PodStatus.Running);
    const first = await preempt([workload(ALICE.userId, [pod.id])], 31, 'preempt-twice');
    expect(first.podIds).toEqual([pod.id]);
    const again = await pods.wrote(() => preempt([workload(ALICE.userId, [pod.id])], 32));
    expect(again).toEqual({ result: { podIds: [] }, wrote: [] });
    await expect(preempt([workload(ALICE.userId, [pod.id])], 31, 'preempt-twice')).resolves.toEqual(first);
    expect(await get(pod.id)).toMatchObject({ status: PodStatus.Exited, statusReason: REASON });
  });

  it('leaves alone pods no longer live, unknown ids and another owner’s pod of a listed id', async () => {
    const exited = await podIn('p-exited', PodStatus.Exited);
    const terminated = await podIn('p-terminated', PodStatus.Terminated);
    const running = await podIn('p-not-bobs', PodStatus.Running);
    const ids = [exited.id, terminated.id, 'pod-unknown'];
    const { result, wrote } = await pods.wrote(() =>
      preempt([workload(ALICE.userId, ids), workload(BOB.userId, [running.id])]),
    );
    expect({ result, wrote }).toEqual({ result: { podIds: [] }, wrote: [] });
    expect(await get(exited.id)).toMatchObject({
      status: PodStatus.Exited,
      statusReason: 'stopped by the user',
    });
    expect(await get(terminated.id)).toMatchObject({ status: PodStatus.Terminated });
    expect(await get(running.id)).toMatchObject({ status: PodStatus.Running, statusReason: null });
  });

  it("stops a whole cluster's live members", async () => {
    await app.createClusterMembers('cluster-preempted', ALICE.userId, [0, 1]);
    const members = ['cluster-preempted-pod-0', 'cluster-preempted-pod-1'];
    await pods.send(Subjects.pod.stop, { podId: members[1] });
    const result = await preempt([
      { ...workload(ALICE.userId, members, 'cluster-preempted'), reason: 'reclaim' },
    ]);
    expect(result.podIds).toEqual([members[0]]);
    expect(await get(members[0])).toMatchObject({
      status: PodStatus.Exited,
      statusReason: `${PREEMPTED_REASON}: by team-research for pod-urgent (high, reclaim)`,
    });
  });
});

describe('a preempted pod started again', () => {
  it('resumes on its host as any stopped pod: its GPUs reserved again, its disk kept, its reason cleared', async () => {
    const pod = await podIn('p-resumed', PodStatus.Running);
    await preempt([workload(ALICE.userId, [pod.id])], 40);
    const epoch = (await row(pod.id)).disk_epoch;
    const started = await pods.send(
      Subjects.pod.start,
      { podId: pod.id },
      { issuedAt: '2026-03-01T12:41:00.000Z' },
    );
    expect(started).toMatchObject({ status: PodStatus.Starting, desiredStatus: PodStatus.Running });
    expect(started.statusReason).toBeNull();
    expect((await row(pod.id)).disk_epoch).toBe(epoch);
    const reserves = app.scheduler.sent(Subjects.placement.reserve).filter((c) => c.podId === pod.id);
    expect(reserves.at(-1)).toMatchObject({ podId: pod.id, hostId: pod.machineId, gpuCount: pod.gpuCount });
  });

  it("answers the scheduler's refusal (QUOTA_EXCEEDED) and stays EXITED with its reason", async () => {
    const pod = await podIn('p-over-quota', PodStatus.Running);
    await preempt([workload(ALICE.userId, [pod.id])], 45);
    const quota = 'quota exceeded: team-alice may hold 0 more NVIDIA A100 80GB PCIe';
    app.scheduler.answer(Subjects.placement.reserve, (command: ReservePodCommand) => {
      if (command.podId === pod.id) throw new DomainError(ErrorCode.QuotaExceeded, quota);
      return reserve(command);
    });
    try {
      expect(await pods.refusal(() => pods.send(Subjects.pod.start, { podId: pod.id }))).toMatchObject({
        code: ErrorCode.QuotaExceeded,
        message: quota,
        wrote: [],
      });
    } finally {
      app.scheduler.answer(Subjects.placement.reserve, reserve);
    }
    expect(await get(pod.id)).toMatchObject({ status: PodStatus.Exited, statusReason: REASON });
  });
});
