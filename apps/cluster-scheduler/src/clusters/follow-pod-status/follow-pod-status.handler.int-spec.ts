import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, type PodStatusChangedEvent } from '@app/contracts';
import type { EventEnvelope } from '@app/messaging';
import type { HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { SchedulerCommands, statusEvent } from '../../../../../test/support/cluster-scheduler-commands.js';
import { whileHeld } from '../../../../../test/support/while-held.js';
import { ClusterMemberEntity } from '../cluster-member.entity.js';

/**
 * A cluster member's status events (pod-lifecycle's `pod.evt.status-changed`) over cluster-scheduler's real schema:
 * two replicas handling two events of one member side by side leave the later status, whatever their order.
 */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_follow_pods');
  harness = scheduler.harness;
});

afterAll(async () => {
  await scheduler?.stop();
});

const createCluster = (name: string, podCount: number, gpuCountPerPod: number) =>
  scheduler.createCluster(name, podCount, gpuCountPerPod);

/** Handles `event` with the app's FollowPodStatusHandler (SchedulerCommands), in a transaction of its own. */
const follow = (event: EventEnvelope<PodStatusChangedEvent>) => scheduler.follow(event);

describe("a cluster member's status events in two replicas at once", () => {
  it('an older event handled beside a newer one waits for it and leaves the newer status', async () => {
    const cluster = await createCluster('followed', 2, 1);
    const { manager } = harness.dataSource;
    const member = (await manager.findOneBy(ClusterMemberEntity, { clusterId: cluster.id }))!;
    const newer = new Date(Date.now() + 60_000);
    const older = new Date(Date.now() + 30_000);
    const event = statusEvent(member.podId, PodStatus.Starting, PodStatus.Provisioning, older);
    const handled = await whileHeld(
      harness.dataSource,
      // The other replica's handling of the newer event, not yet committed.
      (holder) =>
        holder.update(ClusterMemberEntity, { podId: member.podId }, { status: 'RUNNING', statusAt: newer }),
      () => follow(event),
    );
    expect(handled.waited).toBe(true);
    await handled.end();
    expect(await manager.findOneBy(ClusterMemberEntity, { podId: member.podId })).toMatchObject({
      status: 'RUNNING',
      statusAt: newer,
    });
  });

  it('of two events at the same time, the one that follows the other wins in either order', async () => {
    // A member created by pod-lifecycle after its cluster was deleted is PROVISIONING and TERMINATED at one time.
    const at = new Date(Date.now() + 90_000);
    const cluster = await createCluster('same-time', 2, 1);
    const { manager } = harness.dataSource;
    const members = await manager.findBy(ClusterMemberEntity, { clusterId: cluster.id });
    const created = (podId: string) => statusEvent(podId, PodStatus.Provisioning, null, at);
    const terminated = (podId: string) =>
      statusEvent(podId, PodStatus.Terminated, PodStatus.Provisioning, at);
    const orders = [
      [created(members[0].podId), terminated(members[0].podId)],
      [terminated(members[1].podId), created(members[1].podId)],
    ];
    for (const order of orders) {
      for (const event of order) await follow(event);
    }
    const after = await manager.findBy(ClusterMemberEntity, { clusterId: cluster.id });
    expect(after.map((m) => m.status)).toEqual(['TERMINATED', 'TERMINATED']);
  });
});
