import { describe, expect, it } from '@jest/globals';
import { PodStatus } from '@app/contracts';
import {
  planScaling,
  type PlanEndpoint,
  type PlanInput,
  type PlanPod,
  type PlanQueueStats,
  type PlanWorker,
  type ScalingPlan,
} from './scaling-plan.js';

/**
 * The plan for workers on a DRAINING host (endpoint.cmd.drain-workers marked them): replacements are created on
 * other hosts first, beyond workersMax if need be (the draining ones do not count against it), then each draining
 * worker is terminated once a replacement is ready; a drain called off leaves them as any worker. Workers stopped
 * at the drain's deadline, or whose host went unhealthy or gone, are replaced at once.
 */

const NOW = new Date('2026-11-24T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

const endpoint = (overrides: Partial<PlanEndpoint> = {}): PlanEndpoint => ({
  type: 'QB',
  deletedAt: null,
  flashBoot: false,
  idleTimeout: 5,
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  workersMin: 0,
  workersMax: 2,
  ...overrides,
});

const pod = (status: `${PodStatus}`, statusReason: string | null = null): PlanPod => ({
  status: status as PodStatus,
  desiredStatus: status === 'EXITED' || status === 'ERROR' ? PodStatus.Exited : PodStatus.Running,
  statusReason,
});

/** A worker row wanted RUNNING for a minute, its pod, and whether it is on a draining host. */
function worker(
  podId: string,
  p: PlanPod,
  draining = false,
  row: Partial<PlanWorker> = {},
): PlanInput['workers'][number] {
  return {
    worker: {
      podId,
      created: true,
      desired: 'RUNNING',
      podStatus: p.status,
      actionSeq: 1,
      desiredSince: ago(60_000),
      idleSince: null,
      ...row,
    },
    pod: p,
    draining,
  };
}

/** Two jobs in progress, nothing queued: the endpoint wants the two workers it has. */
const BUSY: PlanQueueStats = {
  inQueue: 0,
  inQueueNonLowPriority: 0,
  inProgress: 2,
  oldestQueuedAgeMs: 0,
  recycleWorkerIds: [],
  initializingWorkerIds: [],
};

function plan(overrides: Partial<PlanInput> = {}): ScalingPlan {
  return planScaling({
    endpoint: endpoint(),
    workers: [],
    stats: BUSY,
    refusals: { createRefusedAt: null, spendLimitRefusedAt: null },
    now: NOW,
    settings: { reissueAfterMs: 15_000, failureBackoffMs: 5_000, spendLimitPauseMs: 30_000 },
    ...overrides,
  });
}

const summary = (p: ScalingPlan) => ({
  create: p.create.length,
  stop: p.stop.map((c) => c.podId),
  terminate: p.terminate.map((c) => c.podId),
  resume: p.resume.map((c) => c.podId),
});

const RUNNING = pod('RUNNING');

describe('planScaling: workers on a draining host', () => {
  it('are replaced first: a create for each, beyond workersMax, and none terminated yet', () => {
    const p = plan({ workers: [worker('w-a', RUNNING, true), worker('w-b', RUNNING, true)] });
    expect(summary(p)).toEqual({ create: 2, stop: [], terminate: [], resume: [] });
    expect(p.create[0].tally).toMatchObject({
      workersBefore: 2,
      workersDesired: 2,
      inputs: expect.objectContaining({ draining: 2 }),
    });
  });

  it('are not replaced twice: replacements still starting count toward the size', () => {
    const p = plan({
      workers: [
        worker('w-a', RUNNING, true),
        worker('w-b', RUNNING, true),
        worker('w-new-1', pod('PROVISIONING')),
        worker('w-new-2', pod('STARTING')),
      ],
    });
    expect(summary(p)).toEqual({ create: 0, stop: [], terminate: [], resume: [] });
  });

  it('go one by one as their replacements are ready (not while a replacement still loads its model)', () => {
    const workers = [
      worker('w-a', RUNNING, true, { idleSince: ago(10_000) }),
      worker('w-b', RUNNING, true),
      worker('w-new-1', RUNNING),
      worker('w-new-2', RUNNING),
    ];
    const loading = { ...BUSY, initializingWorkerIds: ['w-new-2'] };
    const one = plan({ workers, stats: loading });
    expect(summary(one)).toEqual({ create: 0, stop: [], terminate: ['w-a'], resume: [] });
    expect(one.terminate[0].reason).toBe(
      'its host drains; replaced: 1 ready worker(s) on other hosts for 2 wanted',
    );
    expect(summary(plan({ workers }))).toEqual({
      create: 0,
      stop: [],
      terminate: ['w-a', 'w-b'],
      resume: [],
    });
  });

  it('one that never ran goes first', () => {
    const p = plan({
      workers: [worker('w-a', RUNNING, true), worker('w-b', pod('STARTING'), true), worker('w-new', RUNNING)],
      stats: { ...BUSY, inProgress: 1 },
    });
    // One job in progress: the endpoint wants one worker, which the ready replacement is.
    expect(summary(p)).toMatchObject({ create: 0, terminate: ['w-b', 'w-a'] });
  });

  it('keeps the serving workers within workersMax while the draining ones come on top', () => {
    const p = plan({
      endpoint: endpoint({ workersMax: 3 }),
      workers: [worker('w-a', RUNNING, true), worker('w-b', RUNNING), worker('w-c', RUNNING)],
      stats: { ...BUSY, inProgress: 3 },
    });
    expect(summary(p)).toEqual({ create: 1, stop: [], terminate: [], resume: [] });
    expect(p.counts).toEqual({ current: 3, desired: 3 });
  });

  it('all go at once when the endpoint wants none', () => {
    const p = plan({
      workers: [worker('w-a', RUNNING, true), worker('w-b', pod('PROVISIONING'), true)],
      stats: { ...BUSY, inProgress: 0 },
    });
    expect(summary(p)).toEqual({ create: 0, stop: [], terminate: ['w-b', 'w-a'], resume: [] });
    expect(p.terminate[0].reason).toBe('its host drains and the endpoint wants no worker');
  });

  it('are left as any worker once the drain is called off (their mark gone)', () => {
    const workers = [
      worker('w-a', RUNNING, false),
      worker('w-b', RUNNING, false),
      worker('w-new-1', pod('STARTING')),
    ];
    // Three workers for two jobs: the one too many goes only once idle past idleTimeout, and never while a job runs.
    expect(summary(plan({ workers }))).toEqual({ create: 0, stop: [], terminate: [], resume: [] });
  });

  it('with FLASHBOOT, are terminated rather than stopped to be kept, and never resumed there', () => {
    const stopped = { desired: 'EXITED' as const, desiredSince: ago(60_000) };
    const p = plan({
      endpoint: endpoint({ flashBoot: true }),
      workers: [
        worker('w-kept', pod('EXITED', 'stopped by the autoscaler'), false, stopped),
        worker('w-there', pod('EXITED', 'stopped by the autoscaler'), true, stopped),
      ],
      stats: { ...BUSY, inProgress: 0, inQueue: 2, inQueueNonLowPriority: 2, oldestQueuedAgeMs: 10_000 },
    });
    expect(summary(p)).toEqual({ create: 1, stop: [], terminate: ['w-there'], resume: ['w-kept'] });
  });

  it('of a load-balancing endpoint: a replacement first, then the draining one goes', () => {
    const lb = { endpoint: endpoint({ type: 'LB', scalerValue: 1 }), stats: null };
    const load = (busy: string[]) => ({ inFlight: 1, waiting: 0, busyWorkerIds: busy });
    expect(summary(plan({ ...lb, lbLoad: load(['w-a']), workers: [worker('w-a', RUNNING, true)] }))).toEqual({
      create: 1,
      stop: [],
      terminate: [],
      resume: [],
    });
    const replaced = [worker('w-a', RUNNING, true), worker('w-new', RUNNING)];
    // The draining one finishes the request it holds first.
    expect(summary(plan({ ...lb, lbLoad: load(['w-a']), workers: replaced })).terminate).toEqual([]);
    expect(summary(plan({ ...lb, lbLoad: load(['w-new']), workers: replaced })).terminate).toEqual(['w-a']);
  });
});

describe('planScaling: workers whose host was lost', () => {
  // Two jobs queued for a second only (under scalerValue 4 s): a scale-up on the queue's delay would wait.
  const queued: PlanQueueStats = {
    ...BUSY,
    inProgress: 0,
    inQueue: 2,
    inQueueNonLowPriority: 2,
    oldestQueuedAgeMs: 1_000,
  };
  const healthy = worker('w-healthy', RUNNING);

  it.each([
    ['ERROR', 'HOST_UNHEALTHY: host h1 is unhealthy (XID): Xid 79 on GPU 3'],
    ['ERROR', 'HOST_GONE: host h1 left the fleet'],
    ['EXITED', "HOST_DRAINED: host h1 was drained: stopped at the drain's deadline"],
  ] as const)('%s with %s: terminated and replaced at once', (status, reason) => {
    const p = plan({ workers: [healthy, worker('w-lost', pod(status, reason))], stats: queued });
    expect(summary(p)).toEqual({ create: 1, stop: [], terminate: ['w-lost'], resume: [] });
    expect(p.create[0].tally.inputs).toMatchObject({ hostLost: 1 });
  });

  it('unlike a worker that crashed, replaced once its jobs have waited scalerValue seconds', () => {
    const crashed = worker('w-crashed', pod('ERROR', 'exited with code 1'));
    expect(summary(plan({ workers: [healthy, crashed], stats: queued }))).toEqual({
      create: 0,
      stop: [],
      terminate: ['w-crashed'],
      resume: [],
    });
    const waited = { ...queued, oldestQueuedAgeMs: 5_000 };
    expect(summary(plan({ workers: [healthy, crashed], stats: waited })).create).toBe(1);
  });
});
