import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { SchedulerCommands } from '../../../../../test/support/cluster-scheduler-commands.js';
import { BOB, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { ClustersRepository } from '../clusters.repository.js';
import { GetClusterHandler } from '../get-cluster/get-cluster.handler.js';

/** `cluster.cmd.rename` over cluster-scheduler's real schema: the name changes, nothing else does. */

let scheduler: SchedulerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_rename_cluster');
  harness = scheduler.harness;
  harness.register(new GetClusterHandler(new ClustersRepository(harness.dataSource)));
});

afterAll(async () => {
  await scheduler?.stop();
});

describe('renaming a cluster', () => {
  it('changes its name only, answers its id and name, and writes the clusters table alone', async () => {
    const cluster = await scheduler.createCluster('before');
    const memberNames = async () => (await scheduler.clusters.members(cluster.id)).map((m) => m.name);
    const namesBefore = await memberNames();
    const { result, wrote } = await harness.wrote(() =>
      harness.send(Subjects.cluster.rename, { id: cluster.id, name: 'after' }),
    );
    expect(result).toEqual({ id: cluster.id, name: 'after' });
    expect(wrote).toEqual(['clusters']);
    expect(await harness.query(Subjects.cluster.get, { id: cluster.id })).toEqual({
      ...cluster,
      name: 'after',
    });
    expect(await memberNames()).toEqual(namesBefore);
  });

  it("refuses another user's cluster (403), an unknown or deleted one (404), writing nothing", async () => {
    const cluster = await scheduler.createCluster('kept');
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.cluster.rename, { id: cluster.id, name: 'mine' }, { actor: BOB }),
      ),
    ).toMatchObject({ code: ErrorCode.Forbidden, wrote: [] });
    await harness.send(Subjects.cluster.delete, { id: cluster.id });
    for (const id of [cluster.id, 'cluster-missing']) {
      expect(
        await harness.refusal(() => harness.send(Subjects.cluster.rename, { id, name: 'gone' })),
      ).toMatchObject({ code: ErrorCode.NotFound, wrote: [] });
    }
  });

  it('refuses a change of anything but the name (422, naming the field)', async () => {
    const cluster = await scheduler.createCluster('shape');
    const refusal = await harness.refusal(() =>
      harness.send(Subjects.cluster.rename, {
        id: cluster.id,
        name: 'bigger',
        compute: { gpuTypeId: cluster.compute.gpuTypeId, gpuCountPerPod: 1, podCount: 9 },
      }),
    );
    expect(refusal).toMatchObject({
      code: ErrorCode.ValidationFailed,
      errors: ['compute is fixed at creation and cannot change: this PATCH only renames the cluster (name)'],
      wrote: [],
    });
  });
});
