import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PodStatus, Subjects, type Actor } from '@app/contracts';
import { SchedulerCommands, statusEvent } from '../../../../../test/support/cluster-scheduler-commands.js';
import { BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { ClustersRepository } from '../clusters.repository.js';
import { ListClustersHandler } from './list-clusters.handler.js';

/** `cluster.qry.list` over cluster-scheduler's real schema: the clusters its create and delete commands left. */

const CAROL: Actor = { userId: 'user-carol', kind: 'user' };

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_list_clusters');
  harness = scheduler.harness;
  harness.register(new ListClustersHandler(new ClustersRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

const at = (time: string) => ({ issuedAt: `2026-03-01T${time}:00.000Z` });

describe('listing clusters', () => {
  it("answers the caller's live clusters, newest first, each with its own members' summary", async () => {
    const older = await scheduler.createCluster('older', 2, 1, at('10:00'));
    const newer = await scheduler.createCluster('newer', 3, 1, at('11:00'));
    const deleted = await scheduler.createCluster('deleted', 2, 1, at('10:30'));
    await harness.send(Subjects.cluster.delete, { id: deleted.id }, at('10:45'));
    const bobs = await scheduler.createCluster('bobs', 2, 1, { ...at('09:00'), actor: BOB });
    const [olderPrimary] = await scheduler.clusters.members(older.id);
    await scheduler.follow(
      statusEvent(
        olderPrimary.podId,
        PodStatus.Running,
        PodStatus.Provisioning,
        new Date('2026-03-01T11:30:00Z'),
      ),
    );

    const listed = await harness.query(Subjects.cluster.list, {});
    expect(listed.map((c) => c.id)).toEqual([newer.id, older.id]);
    expect(listed[0]).toEqual(newer);
    expect(listed[1]).toMatchObject({
      name: 'older',
      pods: { total: 2, byStatus: { PROVISIONING: 1, RUNNING: 1 } },
      primary: { podId: olderPrimary.podId, status: PodStatus.Running },
    });
    expect(await harness.query(Subjects.cluster.list, {}, { actor: BOB })).toEqual([bobs]);
    expect(await harness.query(Subjects.cluster.list, {}, { actor: CAROL })).toEqual([]);
  });
});
