import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, PodStatus, Subjects, type ClusterView } from '@app/contracts';
import {
  DC,
  GPU,
  SchedulerCommands,
  statusEvent,
} from '../../../../../test/support/cluster-scheduler-commands.js';
import { BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { ClustersRepository } from '../clusters.repository.js';
import { GetClusterHandler } from './get-cluster.handler.js';

/**
 * `cluster.qry.get` over cluster-scheduler's real schema: the clusters its create command placed, their members'
 * statuses as pod-lifecycle's events left them.
 */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_get_cluster');
  harness = scheduler.harness;
  harness.register(new GetClusterHandler(new ClustersRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const get = (id: string, actor = {}) => harness.query(Subjects.cluster.get, { id }, actor);

/** A 3-pod cluster of ALICE's exposing SSH, created at 10:00. */
const createCluster = (name: string): Promise<ClusterView> =>
  harness.send(
    Subjects.cluster.create,
    {
      name,
      type: 'TRAINING',
      compute: { gpuTypeId: GPU, gpuCountPerPod: 1, podCount: 3 },
      dataCenterIds: [DC],
      ports: ['22/tcp'],
    },
    { issuedAt: '2026-03-01T10:00:00.000Z' },
  );

describe('getting a cluster', () => {
  it('answers the cluster as created: its compute, network and provisioning members, the primary first', async () => {
    const cluster = await createCluster('trainers');
    const [primary] = await scheduler.clusters.members(cluster.id);
    const view = await get(cluster.id);
    expect(view).toEqual(cluster);
    expect(view).toMatchObject({
      name: 'trainers',
      type: 'TRAINING',
      compute: { gpuTypeId: GPU, gpuCountPerPod: 1, podCount: 3 },
      dataCenterId: DC,
      pods: { total: 3, byStatus: { PROVISIONING: 3 } },
      primary: { podId: primary.podId, status: PodStatus.Provisioning },
      createdAt: '2026-03-01T10:00:00.000Z',
    });
    expect(view.primary?.sshEndpoint).toBeUndefined();
  });

  it("counts its members by the status their events left, and gives a running primary's SSH endpoint", async () => {
    const cluster = await createCluster('running');
    const [primary, , last] = await scheduler.clusters.members(cluster.id);
    await scheduler.follow(
      statusEvent(primary.podId, PodStatus.Running, PodStatus.Provisioning, new Date('2026-03-01T10:05:00Z')),
    );
    await scheduler.follow(
      statusEvent(last.podId, PodStatus.Terminated, PodStatus.Provisioning, new Date('2026-03-01T10:06:00Z')),
    );
    const view = await get(cluster.id);
    // byStatus breaks down the provisioned members `total` counts: it adds up, the TERMINATED one in neither.
    expect(Object.values(view.pods.byStatus).reduce((a, b) => a + b, 0)).toBe(view.pods.total);
    expect(view).toMatchObject({
      pods: { total: 2, byStatus: { PROVISIONING: 1, RUNNING: 1 } },
      primary: {
        podId: primary.podId,
        status: PodStatus.Running,
        sshEndpoint: `${primary.publicIp}:${primary.portMappings['22/tcp']}`,
      },
    });
  });

  it('refuses an unknown id and a deleted cluster (404)', async () => {
    expect(await refusalOf(get('cluster-missing'))).toMatchObject({
      code: ErrorCode.NotFound,
      message: expect.stringContaining('cluster-missing'),
    });
    const deleted = await createCluster('deleted');
    await harness.send(Subjects.cluster.delete, { id: deleted.id });
    expect(await refusalOf(get(deleted.id))).toMatchObject({ code: ErrorCode.NotFound });
  });

  it("refuses another user's cluster (403)", async () => {
    const cluster = await createCluster('private');
    expect(await refusalOf(get(cluster.id, { actor: BOB }))).toMatchObject({
      code: ErrorCode.Forbidden,
      message: expect.stringContaining('another user'),
    });
  });
});
