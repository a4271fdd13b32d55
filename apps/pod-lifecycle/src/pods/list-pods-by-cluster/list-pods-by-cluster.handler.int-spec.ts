import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, PodStatus, Subjects } from '@app/contracts';
import { ALICE, BOB, refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { PodLifecycleHandlers, SYSTEM } from '../../../../../test/support/pod-lifecycle-handlers.js';

/**
 * `pod.qry.list-by-cluster` over pod-lifecycle's real schema: a cluster's members as its member commands wrote
 * them, in rank order, terminated ones included; another user's cluster refused, the platform's view whole.
 */

const CLUSTER = 'cluster-listed';
const members = [0, 1, 2].map((rank) => `${CLUSTER}-pod-${rank}`);

let app: PodLifecycleHandlers;
let pods: HandlerHarness;

const list = (clusterId: string, actor = ALICE) =>
  pods.query(Subjects.pod.listByCluster, { clusterId }, { actor });

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('list_pods_by_cluster');
  pods = app.harness;
  // Ranks out of order in the event, and another cluster beside it.
  await app.createClusterMembers(CLUSTER, ALICE.userId, [2, 0, 1]);
  await app.createClusterMembers('cluster-of-bob', BOB.userId, [0]);
});

afterAll(async () => {
  await app?.stop();
});

describe('pod.qry.list-by-cluster', () => {
  it("answers the owner's cluster's members in rank order, and only them", async () => {
    const listed = await list(CLUSTER);
    expect(listed.map((pod) => [pod.id, pod.clusterRank, pod.clusterRole])).toEqual([
      [members[0], 0, 'primary'],
      [members[1], 1, 'node'],
      [members[2], 2, 'node'],
    ]);
    expect(listed[1]).toEqual(await pods.query(Subjects.pod.get, { podId: members[1] }));
  });

  it('keeps the members once terminated (the scheduler decides what to show)', async () => {
    const cluster = { clusterId: CLUSTER, ownerId: ALICE.userId, podIds: members };
    await pods.send(Subjects.pod.terminateClusterMembers, { cluster }, { actor: SYSTEM });
    expect((await list(CLUSTER)).map((pod) => [pod.id, pod.status])).toEqual(
      members.map((id) => [id, PodStatus.Terminated]),
    );
  });

  it("refuses another user's cluster (403), and shows any cluster to the platform", async () => {
    expect(await refusalOf(list(CLUSTER, BOB))).toMatchObject({ code: ErrorCode.Forbidden });
    expect(await refusalOf(list('cluster-of-bob'))).toMatchObject({ code: ErrorCode.Forbidden });
    expect((await list(CLUSTER, SYSTEM)).map((pod) => pod.id)).toEqual(members);
  });

  it('answers an empty list for a cluster without pods (the scheduler answers 404 for it)', async () => {
    await expect(list('no-such-cluster')).resolves.toEqual([]);
  });
});
