import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, PodStatus, Subjects, type ClusterCreatedEvent } from '@app/contracts';
import {
  DC,
  GPU,
  SchedulerCommands,
  statusEvent,
} from '../../../../../test/support/cluster-scheduler-commands.js';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { ClustersRepository } from '../clusters.repository.js';
import { ListClusterMembersHandler } from './list-cluster-members.handler.js';

/**
 * `cluster.qry.list-members` over cluster-scheduler's real schema: the members of a cluster its create command
 * placed, as the create's event described them, with the statuses pod-lifecycle's events left.
 */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_cluster_members');
  harness = scheduler.harness;
  harness.register(new ListClusterMembersHandler(new ClustersRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const members = (id: string, actor = {}) => harness.query(Subjects.cluster.listMembers, { id }, actor);

/** A 3-pod cluster of ALICE's exposing SSH and 8888/http, created at 10:00; its `cluster.evt.created`. */
async function createCluster(name: string): Promise<ClusterCreatedEvent> {
  const cluster = await harness.send(
    Subjects.cluster.create,
    {
      name,
      type: 'TRAINING',
      compute: { gpuTypeId: GPU, gpuCountPerPod: 1, podCount: 3 },
      dataCenterIds: [DC],
      ports: ['22/tcp', '8888/http'],
      env: { EPOCHS: '3' },
    },
    { issuedAt: '2026-03-01T10:00:00.000Z' },
  );
  const created = (await harness.events(Subjects.cluster.created)).at(-1)?.payload as ClusterCreatedEvent;
  expect(created.clusterId).toBe(cluster.id);
  return created;
}

describe("listing a cluster's members", () => {
  it('answers every member in rank order, placed and addressed as the create announced it', async () => {
    const created = await createCluster('trainers');
    const listed = await members(created.clusterId);
    expect(listed).toEqual(
      created.members.map((m) => ({
        id: m.podId,
        name: m.name,
        clusterId: created.clusterId,
        clusterRank: m.rank,
        clusterRole: m.role,
        clusterIp: m.overlayIp,
        status: PodStatus.Provisioning,
        image: m.image,
        dockerArgs: null,
        env: { ...created.env, ...m.env },
        ports: ['22/tcp', '8888/http'],
        portMappings: m.placement.portMappings,
        publicIp: m.placement.publicIp,
        containerDiskInGb: m.disk,
        gpuTypeId: GPU,
        gpuCount: 1,
        machineId: m.placement.hostId,
        dataCenterId: DC,
        networkVolumeId: null,
        lastStatusChange: '2026-03-01T10:00:00.000Z',
        createdAt: '2026-03-01T10:00:00.000Z',
      })),
    );
    expect(listed.map((m) => m.clusterRank)).toEqual([0, 1, 2]);
    expect(listed[2].env).toMatchObject({ EPOCHS: '3', NODE_RANK: '2' });
  });

  it("shows a member's status as its latest event left it", async () => {
    const created = await createCluster('followed');
    const second = created.members[1].podId;
    await scheduler.follow(
      statusEvent(second, PodStatus.Running, PodStatus.Provisioning, new Date('2026-03-01T10:07:00Z')),
    );
    const listed = await members(created.clusterId);
    expect(listed.map((m) => m.status)).toEqual([
      PodStatus.Provisioning,
      PodStatus.Running,
      PodStatus.Provisioning,
    ]);
    expect(listed[1].lastStatusChange).toBe('2026-03-01T10:07:00.000Z');
  });

  it("refuses an unknown or deleted cluster (404) and another user's (403)", async () => {
    expect(await refusalOf(members('cluster-missing'))).toMatchObject({ code: ErrorCode.NotFound });
    const deleted = await createCluster('deleted');
    await harness.send(Subjects.cluster.delete, { id: deleted.clusterId });
    expect(await refusalOf(members(deleted.clusterId))).toMatchObject({ code: ErrorCode.NotFound });
    const kept = await createCluster('private');
    expect(await refusalOf(members(kept.clusterId, { actor: BOB }))).toMatchObject({
      code: ErrorCode.Forbidden,
    });
  });
});
