import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, PodStatus, Subjects } from '@app/contracts';
import { ALICE, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import {
  PodLifecycleHandlers,
  SYSTEM,
  clusterMember,
} from '../../../../test/support/pod-lifecycle-handlers.js';

/**
 * A pod's priority and interruptible flag over pod-lifecycle's real schema, the scheduler stood in for: stored with
 * the pod, shown in its view, and carried by every reservation of it (its create's and its resume's).
 */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('pod_priority');
  pods = app.harness;
});

afterAll(async () => {
  await app?.stop();
});

const reserved = (podId: string) =>
  app.scheduler.sent(Subjects.placement.reserve).filter((command) => command.podId === podId);
const stored = async (podId: string) =>
  (
    await pods.dataSource.query<{ priority: number; interruptible: boolean }[]>(
      'SELECT priority, interruptible FROM pod_lifecycle.pods WHERE id = $1',
      [podId],
    )
  )[0];

describe('a pod’s priority and interruptible flag', () => {
  it('are normal and false unless asked: stored, shown, and in the reservation', async () => {
    const pod = await app.createPod('plain');
    expect(pod).toMatchObject({ priority: 'normal', interruptible: false });
    expect(await stored(pod.id)).toEqual({ priority: 1, interruptible: false });
    expect(reserved(pod.id)).toEqual([expect.objectContaining({ priority: 'normal', interruptible: false })]);
  });

  it('go with the pod into its create’s reservation and its resume’s, and read back the same', async () => {
    const pod = await app.createPod('spot', { priority: 'high', interruptible: true });
    expect(pod).toMatchObject({ priority: 'high', interruptible: true });
    expect(await stored(pod.id)).toEqual({ priority: 2, interruptible: true });
    await pods.send(
      Subjects.pod.observe,
      { podId: pod.id, generation: await app.generation(pod.id), status: PodStatus.Running },
      { actor: SYSTEM },
    );
    await pods.send(Subjects.pod.stop, { podId: pod.id });
    await pods.send(Subjects.pod.start, { podId: pod.id });
    const workloads = reserved(pod.id).map(({ hostId, priority, interruptible }) => ({
      hostId,
      priority,
      interruptible,
    }));
    // The create's reservation anywhere, the resume's on the pod's host: the same priority and flag.
    expect(workloads).toEqual([
      { hostId: undefined, priority: 'high', interruptible: true },
      { hostId: pod.machineId, priority: 'high', interruptible: true },
    ]);
    await expect(pods.query(Subjects.pod.get, { podId: pod.id })).resolves.toMatchObject({
      priority: 'high',
      interruptible: true,
    });
    const listed = (await pods.query(Subjects.pod.list, {})).find((p) => p.id === pod.id);
    expect(listed).toMatchObject({ priority: 'high', interruptible: true });
  });

  it('take a low priority for the platform’s worker pods too, and refuse another value (nothing reserved)', async () => {
    const worker = await app.createPod(
      'worker',
      { priority: 'low' },
      { actor: { ...SYSTEM, userId: ALICE.userId } },
    );
    expect(reserved(worker.id)).toEqual([expect.objectContaining({ priority: 'low', interruptible: false })]);
    const before = app.scheduler.sent(Subjects.placement.reserve).length;
    expect(await pods.refusal(() => app.createPod('urgent', { priority: 'urgent' }))).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
    });
    expect(app.scheduler.sent(Subjects.placement.reserve)).toHaveLength(before);
  });

  it('a cluster’s member pods keep their cluster’s priority (normal when its event has none), never interruptible', async () => {
    const cluster = {
      clusterId: 'cluster-high',
      ownerId: ALICE.userId,
      priority: 'high',
      members: [clusterMember('cluster-high', 0)],
    };
    await pods.send(Subjects.pod.createClusterMembers, { cluster }, { actor: SYSTEM });
    expect(await stored('cluster-high-pod-0')).toEqual({ priority: 2, interruptible: false });
    await app.createClusterMembers('cluster-plain', ALICE.userId, [0]);
    await expect(pods.query(Subjects.pod.get, { podId: 'cluster-plain-pod-0' })).resolves.toMatchObject({
      priority: 'normal',
      interruptible: false,
    });
  });
});
