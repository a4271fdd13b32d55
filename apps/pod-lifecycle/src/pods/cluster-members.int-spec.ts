import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, PodStatus, Subjects, type ClusterCreatedEvent } from '@app/contracts';
import { ALICE, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import {
  PodLifecycleHandlers,
  SYSTEM,
  clusterMember,
} from '../../../../test/support/pod-lifecycle-handlers.js';
import { whileHeld } from '../../../../test/support/while-held.js';
import { DeletedClustersRepository } from './deleted-clusters/deleted-clusters.repository.js';

/**
 * A cluster's member pods over pod-lifecycle's real schema: the commands it records when it hears the scheduler's
 * cluster events (`pod.cmd.create-cluster-members`, `pod.cmd.terminate-cluster-members`), sent here directly.
 */

let app: PodLifecycleHandlers;
let pods: HandlerHarness;

beforeAll(async () => {
  app = await PodLifecycleHandlers.start('cluster_member_commands');
  pods = app.harness;
});

afterAll(async () => {
  await app?.stop();
});

describe('cluster members (pod.cmd.create-cluster-members, pod.cmd.terminate-cluster-members)', () => {
  const CLUSTER = 'cluster-handlers';
  const member = (rank: number, clusterId = CLUSTER) => clusterMember(clusterId, rank);
  const cluster: ClusterCreatedEvent = {
    clusterId: CLUSTER,
    ownerId: ALICE.userId,
    members: [member(0), member(1)],
  };
  const statuses = async (clusterId = CLUSTER): Promise<string[]> =>
    (
      await pods.dataSource.query<{ status: string }[]>(
        'SELECT status FROM pod_lifecycle.pods WHERE cluster_id = $1 ORDER BY id',
        [clusterId],
      )
    ).map((row) => row.status);

  it('creates the members once (a second command for the same cluster creates none), then terminates them', async () => {
    const actor = { actor: SYSTEM };
    await expect(pods.send(Subjects.pod.createClusterMembers, { cluster }, actor)).resolves.toEqual({
      pods: 2,
    });
    await expect(pods.send(Subjects.pod.createClusterMembers, { cluster }, actor)).resolves.toEqual({
      pods: 0,
    });
    expect(await statuses()).toEqual([PodStatus.Provisioning, PodStatus.Provisioning]);
    const deleted = { clusterId: CLUSTER, ownerId: ALICE.userId, podIds: [member(0).podId, member(1).podId] };
    await expect(
      pods.send(Subjects.pod.terminateClusterMembers, { cluster: deleted }, actor),
    ).resolves.toEqual({ pods: 2 });
    expect(await statuses()).toEqual([PodStatus.Terminated, PodStatus.Terminated]);
  });

  it("gives each member the event's shared variables with its own on top (an event of earlier versions: its own only)", async () => {
    const id = 'cluster-env';
    const withShared: ClusterCreatedEvent = {
      clusterId: id,
      ownerId: ALICE.userId,
      env: { MASTER_ADDR: '10.128.0.1', WORLD_SIZE: '16', RANK: 'shadowed' },
      members: [0, 1].map((rank) => ({ ...member(rank, id), env: { RANK: String(rank) } })),
    };
    await pods.send(Subjects.pod.createClusterMembers, { cluster: withShared }, { actor: SYSTEM });
    const rows = await pods.dataSource.query<{ env: Record<string, string> }[]>(
      'SELECT env FROM pod_lifecycle.pods WHERE cluster_id = $1 ORDER BY cluster_rank',
      [id],
    );
    expect(rows.map((row) => row.env)).toEqual([
      { MASTER_ADDR: '10.128.0.1', WORLD_SIZE: '16', RANK: '0' },
      { MASTER_ADDR: '10.128.0.1', WORLD_SIZE: '16', RANK: '1' },
    ]);
    const older: ClusterCreatedEvent = {
      clusterId: 'cluster-env-older',
      ownerId: ALICE.userId,
      members: [{ ...member(0, 'cluster-env-older'), env: { RANK: '0', WORLD_SIZE: '1' } }],
    };
    await pods.send(Subjects.pod.createClusterMembers, { cluster: older }, { actor: SYSTEM });
    const [old] = await pods.dataSource.query<{ env: Record<string, string> }[]>(
      'SELECT env FROM pod_lifecycle.pods WHERE cluster_id = $1',
      ['cluster-env-older'],
    );
    expect(old.env).toEqual({ RANK: '0', WORLD_SIZE: '1' });
  });

  it("applied while another replica's terminate of the cluster is in flight, a create waits for it and terminates its members", async () => {
    const id = 'cluster-race';
    const raced: ClusterCreatedEvent = {
      clusterId: id,
      ownerId: ALICE.userId,
      members: [member(0, id), member(1, id)],
    };
    // The terminate, mid-transaction on another replica: the cluster's members locked, its delete written, no commit.
    const deletedClusters = new DeletedClustersRepository();
    const create = await whileHeld(
      pods.dataSource,
      async (manager) => {
        await deletedClusters.lockMembers(id, manager);
        await deletedClusters.record(id, new Date(), manager);
      },
      () => pods.send(Subjects.pod.createClusterMembers, { cluster: raced }, { actor: SYSTEM }),
    );
    expect(create.waited).toBe(true);
    // Without the lock the create would have read "not deleted" and left both members PROVISIONING.
    await expect(create.end()).resolves.toEqual({ pods: 2 });
    expect(await statuses(id)).toEqual([PodStatus.Terminated, PodStatus.Terminated]);
  });

  it("refuses a member's own terminate alike for /v1 and /v2 (409, nothing written), and says so in its actions", async () => {
    const id = 'cluster-guard';
    const guarded: ClusterCreatedEvent = { clusterId: id, ownerId: ALICE.userId, members: [member(0, id)] };
    await pods.send(Subjects.pod.createClusterMembers, { cluster: guarded }, { actor: SYSTEM });
    const podId = member(0, id).podId;
    const message = `cannot terminate pod ${podId}: it is a member of cluster ${id}; delete the cluster instead`;
    // /v1 and GraphQL send the bare action, /v2 with publishedOnly: one rule in the owner answers both.
    for (const payload of [{ podId }, { podId, publishedOnly: true }]) {
      expect(await pods.refusal(() => pods.send(Subjects.pod.terminate, payload))).toEqual({
        code: ErrorCode.InvalidState,
        message,
        wrote: [],
      });
    }
    const view = await pods.query(Subjects.pod.get, { podId });
    expect(view).toMatchObject({ status: PodStatus.Provisioning, clusterId: id });
    expect(view.allowedActions).toEqual(['stop']);
    expect(view.actions).toEqual(['stop']);
    // A stop is the member's to ask for, as for any pod.
    await expect(pods.send(Subjects.pod.stop, { podId })).resolves.toMatchObject({
      status: PodStatus.Exited,
    });
  });

  it('applies a member terminate recorded before the rule (command format 2) as it was then: terminated', async () => {
    const id = 'cluster-format-2';
    const older: ClusterCreatedEvent = { clusterId: id, ownerId: ALICE.userId, members: [member(0, id)] };
    await pods.send(Subjects.pod.createClusterMembers, { cluster: older }, { actor: SYSTEM });
    const podId = member(0, id).podId;
    // What a replay of a /v1 DELETE recorded by a build of format 2 sends.
    await expect(pods.send(Subjects.pod.terminate, { podId }, { format: 2 })).resolves.toMatchObject({
      status: PodStatus.Terminated,
    });
  });

  it('refuses a command without its cluster (422), writing nothing', async () => {
    for (const subject of [Subjects.pod.createClusterMembers, Subjects.pod.terminateClusterMembers]) {
      expect(await pods.refusal(() => pods.send(subject, {}, { actor: SYSTEM }))).toMatchObject({
        code: ErrorCode.ValidationFailed,
        wrote: [],
      });
    }
  });
});
