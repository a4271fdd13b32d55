import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, Subjects, type PreemptedEvent, type QuotaInput } from '@app/contracts';
import { SMALL_FLEET, SchedulerCommands } from '../../../../test/support/cluster-scheduler-commands.js';

/**
 * Quotas over cluster-scheduler's real schema and SMALL_FLEET (L4: 4 + 2 GPUs in US-TX-3, 8 in EU-RO-1): the set
 * command's checks, admission in the placement's transaction, borrowing in a cohort and its reclaim, preemption by
 * priority and of interruptible pods, the pace limit, the views and the minute samples.
 */
const L4 = 'NVIDIA L4';
let scheduler: SchedulerCommands;
let seq = 0;
let pods = 0;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_quotas', { fleet: SMALL_FLEET });
});

afterAll(async () => {
  await scheduler?.stop();
});

afterEach(async () => {
  const rows: { pod_id: string }[] = await scheduler.harness.dataSource.query(
    'SELECT pod_id FROM cluster_scheduler.reservations',
  );
  for (const { pod_id } of rows) await scheduler.harness.send(Subjects.placement.release, { podId: pod_id });
  await scheduler.harness.dataSource.query('DELETE FROM cluster_scheduler.quotas');
  await scheduler.harness.dataSource.query('DELETE FROM cluster_scheduler.preemptions');
  scheduler.config.PREEMPTIONS_PER_MINUTE = 20;
});

const setQuota = (accountId: string, quota: QuotaInput) =>
  scheduler.harness.send(Subjects.quota.set, { accountId, accountName: `name of ${accountId}`, ...quota });
const l4 = (gpus: number, extra: object = {}) => ({ gpuTypeId: L4, gpus, ...extra });

/** A pod of `gpus` L4s for `ownerId`; a later `at` makes it the more recently started. */
function reserve(ownerId: string, gpus: number, extra: object = {}, minute = ++seq) {
  const podId = `pod-${ownerId}-${++pods}`;
  const issuedAt = new Date(Date.UTC(2026, 2, 1, 12, minute)).toISOString();
  return scheduler.harness.send(
    Subjects.placement.reserve,
    { podId, ownerId, gpuTypeId: L4, gpuCount: gpus, ports: [], ...extra },
    { issuedAt },
  );
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('quotas', () => {
  it('refuses limits of unknown GPU types, two limits of one key, and a cohort on the default', async () => {
    expect(
      (await refusal(setQuota('team-a', { limits: [l4(1), { gpuTypeId: 'nope', gpus: 1 }] }))).errors,
    ).toEqual([expect.stringContaining('limits.1.gpuTypeId')]);
    expect((await refusal(setQuota('team-a', { limits: [l4(1), l4(2)] }))).errors![0]).toMatch(
      /one per GPU type/,
    );
    expect((await refusal(setQuota('*', { cohort: 'r', limits: [l4(1)] }))).errors![0]).toMatch(/default/);
    expect(await scheduler.quotas.all()).toEqual([]);
  });

  it('refuses a pod or a cluster beyond the quota, naming the account, type, limit, use and ask', async () => {
    await setQuota('team-a', { limits: [l4(4)] });
    await reserve('team-a', 4);
    const error = await refusal(reserve('team-a', 1));
    expect(error.code).toBe(ErrorCode.QuotaExceeded);
    expect(error.message).toBe(
      'account name of team-a (team-a) would exceed its GPU quota for NVIDIA L4: limit 4 GPUs, 4 in use, 1 asked',
    );
    const cluster = {
      name: 'c',
      type: 'TRAINING',
      compute: { gpuTypeId: L4, gpuCountPerPod: 1, podCount: 2 },
    };
    const clusterError = await refusal(
      scheduler.harness.send(Subjects.cluster.create, cluster, { actor: { userId: 'team-a', kind: 'user' } }),
    );
    expect(clusterError.code).toBe(ErrorCode.QuotaExceeded);
  });

  it('never lets two concurrent creates pass one quota together', async () => {
    await setQuota('team-a', { limits: [l4(4)] });
    const results = await Promise.allSettled([
      reserve('team-a', 3),
      reserve('team-a', 3),
      reserve('team-a', 3),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [{ sum }]: { sum: number }[] = await scheduler.harness.dataSource.query(
      "SELECT sum(gpu_count)::int AS sum FROM cluster_scheduler.reservations WHERE owner_id = 'team-a'",
    );
    expect(sum).toBe(3);
  });

  it("lends a cohort's idle quota and reclaims it by preempting the borrower's newest pod", async () => {
    await setQuota('team-a', { cohort: 'r', limits: [l4(4)] });
    await setQuota('team-b', { cohort: 'r', limits: [l4(8, { borrowingLimit: 4 })] });
    await reserve('team-b', 8, { dataCenterIds: ['EU-RO-1'] });
    const borrowed = await reserve('team-b', 4, { dataCenterIds: ['US-TX-3'] });
    await refusal(reserve('team-b', 1)).then((e) => expect(e.code).toBe(ErrorCode.QuotaExceeded));
    expect(await scheduler.harness.query(Subjects.quota.get, { accountId: 'team-a' })).toMatchObject({
      source: 'account',
      cohort: 'r',
      limits: [{ gpus: 4, inUse: 0, borrowed: 0, lent: 4 }],
    });

    const placed = await reserve('team-a', 4, { priority: 'low' });
    expect(placed.hostId).toBe(borrowed.hostId);
    const [event] = await scheduler.harness.events(Subjects.placement.preempted);
    expect(event.payload as PreemptedEvent).toEqual({
      preemptor: { accountId: 'team-a', workloadId: placed.podId, priority: 'low' },
      workloads: [{ ownerId: 'team-b', podIds: [borrowed.podId], clusterId: null, reason: 'reclaim' }],
    });
    const audit = (await scheduler.harness.events(Subjects.audit.recorded)).map((e) => e.payload);
    expect(audit).toContainEqual(
      expect.objectContaining({
        accountId: 'team-b',
        action: 'placement.preempted',
        resourceId: borrowed.podId,
      }),
    );
    expect(await scheduler.placement.findReservation(borrowed.podId)).toBeNull();
    expect(await scheduler.harness.query(Subjects.quota.get, { accountId: 'team-b' })).toMatchObject({
      limits: [{ gpus: 8, inUse: 8, borrowed: 0, lent: 0 }],
      preempted: { total: 1 },
    });
  });

  it("preempts the team's own lower-priority pod, and anyone's interruptible pod, never an equal one", async () => {
    await reserve('team-c', 8, { priority: 'low' });
    await reserve('team-c', 4);
    await reserve('team-d', 2, { interruptible: true, priority: 'high' });
    const high = await reserve('team-c', 8, { priority: 'high' });
    expect(high.dataCenterId).toBe('EU-RO-1');
    const normal = await reserve('team-e', 2);
    expect(normal.hostId).toBe('tx-l4-2');
    const reasons = (await scheduler.harness.events(Subjects.placement.preempted)).map(
      (e) => (e.payload as PreemptedEvent).workloads[0].reason,
    );
    expect(reasons.slice(-2)).toEqual(['priority', 'interruptible']);
    expect((await refusal(reserve('team-c', 4))).code).toBe(ErrorCode.CapacityUnavailable);
  });

  it('preempts at most PREEMPTIONS_PER_MINUTE workloads of one cohort a minute', async () => {
    scheduler.config.PREEMPTIONS_PER_MINUTE = 1;
    await reserve('team-f', 2, { interruptible: true, dataCenterIds: ['US-TX-3'] }, 50);
    await reserve('team-f', 4, { interruptible: true, dataCenterIds: ['US-TX-3'] }, 50);
    await reserve('team-g', 4, { dataCenterIds: ['US-TX-3'] }, 50);
    const error = await refusal(reserve('team-g', 2, { dataCenterIds: ['US-TX-3'] }, 50));
    expect(error.code).toBe(ErrorCode.CapacityUnavailable);
    expect(error.message).toMatch(/pace limit/);
    await reserve('team-g', 2, { dataCenterIds: ['US-TX-3'] }, 52);
  });

  it('samples every limit of every quota, for the history', async () => {
    await setQuota('*', { limits: [l4(2)] });
    await setQuota('team-h', { limits: [l4(6)] });
    await reserve('team-h', 4);
    await reserve('someone', 2);
    await expect(reserve('someone', 1)).rejects.toMatchObject({ code: ErrorCode.QuotaExceeded });
    const now = new Date();
    expect(await scheduler.harness.send(Subjects.quota.sample, {}, { issuedAt: now.toISOString() })).toEqual({
      samples: 2,
    });
    const history = await scheduler.harness.query(Subjects.quota.history, { accountId: 'team-h' });
    expect(history.samples).toEqual([
      { at: now.toISOString(), gpuTypeId: L4, dataCenterId: null, gpus: 6, inUse: 4, borrowed: 0, lent: 0 },
    ]);
    const list = await scheduler.harness.query(Subjects.quota.list, {});
    expect(list.default).toMatchObject({ accountId: '*', limits: [{ gpus: 2 }] });
    expect(list.quotas.map((q) => q.accountId)).toEqual(['team-h']);
  });
});
