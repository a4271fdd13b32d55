import { describe, expect, it } from '@jest/globals';
import {
  planScaling,
  type PlanEndpoint,
  type PlanInput,
  type PlanPod,
  type PlanQueueStats,
  type PlanWorker,
  type ScalingPlan,
} from './scaling-plan.js';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

function endpoint(overrides: Partial<PlanEndpoint> = {}): PlanEndpoint {
  return {
    type: 'QB',
    deletedAt: null,
    flashBoot: false,
    idleTimeout: 5,
    scalerType: 'QUEUE_DELAY',
    scalerValue: 4,
    workersMin: 0,
    workersMax: 3,
    ...overrides,
  };
}

interface WorkerCase extends Partial<PlanWorker> {
  /** The pod as pod-lifecycle shows it; by default RUNNING and wanted RUNNING, `null` when it is gone. */
  pod?: Partial<PlanPod> | null;
}

function worker(podId: string, overrides: WorkerCase = {}): PlanInput['workers'][number] {
  const { pod: podOverrides, ...row } = overrides;
  const running: PlanPod = { status: 'RUNNING', desiredStatus: 'RUNNING', statusReason: null };
  const pod = podOverrides === null ? null : { ...running, ...podOverrides };
  const created = row.created ?? true;
  return {
    worker: {
      podId,
      created,
      desired: 'RUNNING',
      podStatus: created ? (pod?.status ?? 'TERMINATED') : null,
      actionSeq: 1,
      desiredSince: ago(60_000),
      idleSince: null,
      ...row,
    },
    pod: created ? pod : null,
  };
}

/** A worker that is up and has had nothing to do for `idleMs`. */
const idle = (podId: string, idleMs: number, overrides: WorkerCase = {}) =>
  worker(podId, { idleSince: ago(idleMs), ...overrides });
/** A FLASHBOOT worker the autoscaler stopped `stoppedMs` ago. */
const stopped = (podId: string, stoppedMs: number) =>
  worker(podId, {
    desired: 'EXITED',
    desiredSince: ago(stoppedMs),
    pod: { status: 'EXITED', desiredStatus: 'EXITED' },
  });

function stats(overrides: Partial<PlanQueueStats> = {}): PlanQueueStats {
  return {
    inQueue: 0,
    inQueueNonLowPriority: 0,
    inProgress: 0,
    oldestQueuedAgeMs: 0,
    recycleWorkerIds: [],
    initializingWorkerIds: [],
    ...overrides,
  };
}
/** `n` jobs queued (none lowPriority), the oldest waiting `ageMs`. */
const queued = (n: number, ageMs: number, overrides: Partial<PlanQueueStats> = {}) =>
  stats({ inQueue: n, inQueueNonLowPriority: n, oldestQueuedAgeMs: ageMs, ...overrides });

function plan(overrides: Partial<PlanInput> = {}): ScalingPlan {
  const ep = overrides.endpoint ?? endpoint();
  return planScaling({
    endpoint: ep,
    workers: [],
    stats: ep.deletedAt || ep.type !== 'QB' ? null : stats(),
    refusals: { createRefusedAt: null, spendLimitRefusedAt: null },
    now: NOW,
    settings: { reissueAfterMs: 15_000, failureBackoffMs: 5_000, spendLimitPauseMs: 30_000 },
    ...overrides,
  });
}

/** The buckets in short: how many creates, which pods go where, which commands are sent again. */
function buckets(p: ScalingPlan) {
  return {
    create: p.create.length,
    resume: p.resume.map((c) => c.podId),
    stop: p.stop.map((c) => c.podId),
    terminate: p.terminate.map((c) => c.podId),
    reissue: p.reissue.map((r) => `${r.podId}:${r.command}`),
    drop: p.drop.map((d) => d.podId),
  };
}

const NOTHING = { create: 0, resume: [], stop: [], terminate: [], reissue: [], drop: [] };

describe('planScaling: how many workers', () => {
  it.each<{ name: string; input: Partial<PlanInput>; expected: Partial<ReturnType<typeof buckets>> }>([
    { name: 'an idle endpoint at workersMin 0 stays empty', input: {}, expected: {} },
    {
      name: 'workersMin is kept without any job',
      input: { endpoint: endpoint({ workersMin: 2 }) },
      expected: { create: 2 },
    },
    {
      name: 'scale from zero: one queued job, no worker, the delay not reached yet',
      input: { stats: queued(1, 100) },
      expected: { create: 1 },
    },
    {
      name: 'QUEUE_DELAY within the delay: no more workers',
      input: { workers: [worker('a')], stats: queued(3, 2_000) },
      expected: {},
    },
    {
      name: 'QUEUE_DELAY past the delay: one more worker per queued job no starting worker takes',
      input: {
        workers: [worker('a'), worker('b', { pod: { status: 'STARTING' } })],
        stats: queued(2, 5_000),
      },
      expected: { create: 1 },
    },
    {
      name: 'QUEUE_DELAY past the delay: a RUNNING pod whose worker has not asked for a job yet is starting',
      input: { workers: [worker('a')], stats: queued(1, 5_000, { initializingWorkerIds: ['a'] }) },
      expected: {},
    },
    {
      name: 'QUEUE_DELAY past the delay: a RUNNING pod whose worker polls is not starting',
      input: { workers: [worker('a')], stats: queued(1, 5_000, { initializingWorkerIds: ['other'] }) },
      expected: { create: 1 },
    },
    {
      name: 'REQUEST_COUNT: ceil((queued + in progress) / scalerValue)',
      input: {
        endpoint: endpoint({ scalerType: 'REQUEST_COUNT', scalerValue: 2, workersMax: 10 }),
        stats: queued(4, 0, { inProgress: 1 }),
      },
      expected: { create: 3 },
    },
    {
      name: 'never beyond workersMax',
      input: { endpoint: endpoint({ scalerType: 'REQUEST_COUNT', scalerValue: 1 }), stats: queued(50, 0) },
      expected: { create: 3 },
    },
    {
      name: 'lowPriority jobs alone cause no scale-up',
      input: { stats: stats({ inQueue: 5, inQueueNonLowPriority: 0 }) },
      expected: {},
    },
    {
      name: 'workers not created yet count as coming up (their create is sent again)',
      input: { workers: [worker('a', { created: false, actionSeq: 0 })], stats: queued(1, 100) },
      expected: { reissue: ['a:create'] },
    },
  ])('$name', ({ input, expected }) => {
    expect(buckets(plan(input))).toEqual({ ...NOTHING, ...expected });
  });

  it('gives each create the decision, its reason and its inputs', () => {
    const p = plan({ endpoint: endpoint({ workersMin: 1 }), stats: queued(0, 0, { inQueue: 2 }) });
    expect(p.create).toEqual([
      {
        reason: expect.stringContaining('raised to workersMin 1'),
        tally: {
          workersBefore: 0,
          workersDesired: 1,
          inputs: { inQueue: 2, inQueueNonLowPriority: 0, inProgress: 0, oldestQueuedAgeMs: 0 },
        },
      },
    ]);
    expect(p.counts).toEqual({ current: 0, desired: 1 });
  });
});

describe('planScaling: scale-down', () => {
  it.each<{ name: string; input: Partial<PlanInput>; expected: Partial<ReturnType<typeof buckets>> }>([
    {
      name: 'a worker idle past idleTimeout is terminated',
      input: { workers: [idle('a', 6_000)] },
      expected: { terminate: ['a'] },
    },
    {
      name: 'a worker idle for less than idleTimeout is kept',
      input: { workers: [idle('a', 4_000)] },
      expected: {},
    },
    {
      name: 'FLASHBOOT stops the idle worker instead (kept for a quick resume)',
      input: { endpoint: endpoint({ flashBoot: true }), workers: [idle('a', 6_000)] },
      expected: { stop: ['a'] },
    },
    {
      name: 'the longest idle goes first, only down to what is wanted',
      input: {
        endpoint: endpoint({ workersMin: 1 }),
        workers: [idle('young', 6_000), idle('old', 9_000)],
      },
      expected: { terminate: ['old'] },
    },
    {
      name: 'nothing is stopped while a job is in progress, however long the others idle',
      input: { workers: [idle('a', 60_000), worker('b')], stats: stats({ inProgress: 1 }) },
      expected: {},
    },
    {
      name: 'a worker that is not RUNNING yet is not stopped',
      input: { workers: [idle('a', 60_000, { pod: { status: 'STARTING' } })] },
      expected: {},
    },
  ])('$name', ({ input, expected }) => {
    expect(buckets(plan(input))).toEqual({ ...NOTHING, ...expected });
  });

  it('says how long the worker idled, clears its idleness and counts it in the event', () => {
    const p = plan({ workers: [idle('a', 6_000)] });
    expect(p.terminate).toEqual([
      {
        podId: 'a',
        desired: 'TERMINATED',
        actionSeq: 2,
        clearIdle: true,
        reason: expect.stringMatching(/^idle 6 s >= idleTimeout 5 s; QUEUE_DELAY/),
        tally: expect.objectContaining({ workersBefore: 1, workersDesired: 0 }),
      },
    ]);
  });

  it('tracks idleness: idle since now once the queue is empty, no longer idle while there is work', () => {
    expect(plan({ workers: [worker('a')] }).refresh).toEqual([{ podId: 'a', idleSince: NOW }]);
    expect(plan({ workers: [idle('a', 1_000)], stats: queued(1, 0) }).refresh).toEqual([
      { podId: 'a', idleSince: null },
    ]);
    expect(plan({ workers: [idle('a', 1_000)] }).refresh).toEqual([]);
  });
});

describe('planScaling: FLASHBOOT resume', () => {
  it('resumes the most recently stopped workers before creating any', () => {
    const p = plan({
      endpoint: endpoint({ flashBoot: true, scalerType: 'REQUEST_COUNT', scalerValue: 1 }),
      workers: [stopped('old', 60_000), stopped('recent', 10_000)],
      stats: queued(3, 0),
    });
    expect(buckets(p)).toEqual({ ...NOTHING, resume: ['recent', 'old'], create: 1 });
    expect(p.resume[0]).toMatchObject({ desired: 'RUNNING', actionSeq: 2 });
  });

  it('without FLASHBOOT a stopped worker is terminated, not resumed', () => {
    const p = plan({ workers: [stopped('a', 1_000)], stats: queued(1, 100) });
    expect(buckets(p)).toEqual({ ...NOTHING, terminate: ['a'], create: 1 });
    expect(p.terminate[0].reason).toBe('FLASHBOOT is off: stopped workers are not kept');
  });
});

describe('planScaling: unhealthy and lost workers', () => {
  it.each<{
    name: string;
    w: ReturnType<typeof worker>;
    expected: Partial<ReturnType<typeof buckets>>;
    reason: RegExp;
  }>([
    {
      name: 'a pod in ERROR is terminated',
      w: worker('a', { pod: { status: 'ERROR', statusReason: 'image pull failed' } }),
      expected: { terminate: ['a'] },
      reason: /^worker pod failed: image pull failed$/,
    },
    {
      name: 'a pod that exited by itself is terminated',
      w: worker('a', { pod: { status: 'EXITED', desiredStatus: 'RUNNING', statusReason: 'exit 1' } }),
      expected: { terminate: ['a'] },
      reason: /^worker exited by itself: exit 1$/,
    },
    {
      name: 'a pod still EXITED long after its start was asked is terminated',
      w: worker('a', { desiredSince: ago(20_000), pod: { status: 'EXITED', desiredStatus: 'EXITED' } }),
      expected: { terminate: ['a'] },
      reason: /^worker exited by itself/,
    },
    {
      name: 'a pod terminated elsewhere: its row goes with a failed event',
      w: worker('a', { pod: null }),
      expected: { drop: ['a'] },
      reason: /^worker pod was terminated outside the autoscaler$/,
    },
  ])('$name', ({ w, expected, reason }) => {
    const p = plan({ workers: [w] });
    expect(buckets(p)).toEqual({ ...NOTHING, ...expected });
    expect([...p.terminate, ...p.drop][0].reason).toMatch(reason);
  });

  it('a resume asked for moments ago is waited for, and its command sent again', () => {
    const w = worker('a', { desiredSince: ago(1_000), pod: { status: 'EXITED', desiredStatus: 'EXITED' } });
    expect(buckets(plan({ workers: [w] }))).toEqual({ ...NOTHING, reissue: ['a:start'] });
  });

  it('a terminated pod the autoscaler terminated just goes, without a failed event', () => {
    const p = plan({ workers: [worker('a', { desired: 'TERMINATED', pod: null })] });
    expect(p.drop).toEqual([{ podId: 'a', failed: false, reason: 'worker pod terminated' }]);
  });

  it('records the pod status it sees', () => {
    const p = plan({ workers: [worker('a', { podStatus: 'STARTING' })] });
    expect(p.refresh).toContainEqual(expect.objectContaining({ podId: 'a', podStatus: 'RUNNING' }));
  });

  it('a worker that asked to be recycled is terminated once, not stopped again by the scale-down', () => {
    const p = plan({
      endpoint: endpoint({ flashBoot: true }),
      workers: [idle('a', 60_000)],
      stats: stats({ recycleWorkerIds: ['a'] }),
    });
    expect(buckets(p)).toEqual({ ...NOTHING, terminate: ['a'] });
    expect(p.terminate[0].reason).toBe('the worker asked to be recycled (stopPod)');
  });
});

describe('planScaling: commands sent again', () => {
  it.each<{ name: string; w: ReturnType<typeof worker>; expected: Partial<ReturnType<typeof buckets>> }>([
    {
      name: 'a create not answered yet',
      w: worker('a', { created: false, actionSeq: 0 }),
      expected: { reissue: ['a:create'] },
    },
    {
      name: 'a row never created and no longer wanted just goes',
      w: worker('a', { created: false, desired: 'EXITED' }),
      expected: { drop: ['a'] },
    },
    {
      name: 'a stop pod-lifecycle does not show yet',
      w: worker('a', { desired: 'EXITED', pod: { status: 'RUNNING', desiredStatus: 'RUNNING' } }),
      expected: { reissue: ['a:stop'] },
    },
    {
      name: 'nothing for a pod whose wanted state agrees',
      w: worker('a', { idleSince: ago(1_000) }),
      expected: {},
    },
  ])('$name', ({ w, expected }) => {
    expect(buckets(plan({ endpoint: endpoint({ flashBoot: true }), workers: [w] }))).toEqual({
      ...NOTHING,
      ...expected,
    });
  });

  it('a terminate pod-lifecycle does not show yet, on a live endpoint too', () => {
    const going = worker('a', { desired: 'TERMINATED', actionSeq: 3, pod: { desiredStatus: 'EXITED' } });
    const gone = worker('b', {
      desired: 'TERMINATED',
      pod: { status: 'RUNNING', desiredStatus: 'TERMINATED' },
    });
    const p = plan({ workers: [going, gone] });
    expect(buckets(p)).toEqual({ ...NOTHING, reissue: ['a:terminate'] });
    expect(p.reissue[0].actionSeq).toBe(3);
    expect(p.counts).toEqual({ current: 0, desired: 0 });
  });

  it('keeps the action count of the command it repeats (the same command id)', () => {
    const w = worker('a', { desired: 'EXITED', actionSeq: 4, pod: { desiredStatus: 'RUNNING' } });
    expect(plan({ endpoint: endpoint({ flashBoot: true }), workers: [w] }).reissue).toEqual([
      { podId: 'a', command: 'stop', actionSeq: 4, reason: expect.any(String) },
    ]);
  });
});

describe('planScaling: back-offs after refusals', () => {
  const busy = { stats: queued(2, 10_000) };
  it.each<{ name: string; input: Partial<PlanInput>; expected: Partial<ReturnType<typeof buckets>> }>([
    {
      name: 'no new worker within the failure back-off of a refused create',
      input: { ...busy, refusals: { createRefusedAt: ago(4_000), spendLimitRefusedAt: null } },
      expected: {},
    },
    {
      name: 'creates again once the back-off has passed',
      input: { ...busy, refusals: { createRefusedAt: ago(6_000), spendLimitRefusedAt: null } },
      expected: { create: 2 },
    },
    {
      name: 'the spend limit holds creates for its own, longer pause',
      input: { ...busy, refusals: { createRefusedAt: ago(20_000), spendLimitRefusedAt: ago(20_000) } },
      expected: {},
    },
    {
      name: 'the spend limit holds resumes too',
      input: {
        endpoint: endpoint({ flashBoot: true }),
        workers: [stopped('a', 60_000)],
        ...busy,
        refusals: { createRefusedAt: null, spendLimitRefusedAt: ago(1_000) },
      },
      expected: {},
    },
    {
      name: 'a failure back-off does not hold a resume',
      input: {
        endpoint: endpoint({ flashBoot: true }),
        workers: [stopped('a', 60_000)],
        ...busy,
        refusals: { createRefusedAt: ago(1_000), spendLimitRefusedAt: null },
      },
      expected: { resume: ['a'] },
    },
    {
      name: 'after the spend-limit pause, workers come again',
      input: { ...busy, refusals: { createRefusedAt: null, spendLimitRefusedAt: ago(31_000) } },
      expected: { create: 2 },
    },
    {
      name: 'a back-off holds no scale-down',
      input: {
        workers: [idle('a', 60_000)],
        refusals: { createRefusedAt: ago(1_000), spendLimitRefusedAt: ago(1_000) },
      },
      expected: { terminate: ['a'] },
    },
  ])('$name', ({ input, expected }) => {
    expect(buckets(plan(input))).toEqual({ ...NOTHING, ...expected });
  });

  it('says what held the scale-up back', () => {
    const p = plan({ ...busy, refusals: { createRefusedAt: null, spendLimitRefusedAt: ago(10_000) } });
    expect(p.held).toEqual(['spend limit reached: no worker created or resumed for 20 s more']);
  });
});

describe('planScaling: deleted and load-balancing endpoints', () => {
  const deleted = endpoint({ deletedAt: ago(1_000), workersMin: 0, workersMax: 0 });

  it('a deleted endpoint without workers: the queue is purged and the endpoint removed', () => {
    const p = plan({ endpoint: deleted });
    expect(p).toMatchObject({ purgeQueue: true, removeEndpoint: true, counts: null });
    expect(buckets(p)).toEqual(NOTHING);
  });

  it('a deleted endpoint terminates its workers and stays until they are gone', () => {
    const p = plan({
      endpoint: deleted,
      workers: [
        worker('up'),
        worker('going', { desired: 'TERMINATED', pod: { desiredStatus: 'TERMINATED' } }),
        worker('gone', { desired: 'TERMINATED', pod: null }),
        worker('never', { created: false }),
      ],
    });
    expect(buckets(p)).toEqual({
      ...NOTHING,
      terminate: ['up'],
      reissue: ['going:terminate'],
      drop: ['gone', 'never'],
    });
    expect(p).toMatchObject({ purgeQueue: true, removeEndpoint: false });
    expect(p.terminate[0]).toMatchObject({
      reason: 'the endpoint was deleted',
      tally: { workersBefore: 0, workersDesired: 0, inputs: {} },
    });
  });
});

describe('planScaling: load-balancing endpoints (request count)', () => {
  const lbEndpoint = (overrides: Partial<PlanEndpoint> = {}) =>
    endpoint({ type: 'LB', scalerType: 'REQUEST_COUNT', scalerValue: 2, workersMax: 4, ...overrides });
  const load = (inFlight: number, waiting = 0, busyWorkerIds: string[] = []) => ({
    inFlight,
    waiting,
    busyWorkerIds,
  });

  it.each<{ name: string; input: Partial<PlanInput>; expected: Partial<ReturnType<typeof buckets>> }>([
    { name: 'no request, workersMin 0: no worker', input: { lbLoad: load(0) }, expected: {} },
    {
      name: 'workersMin is kept without requests',
      input: { endpoint: lbEndpoint({ workersMin: 1 }), lbLoad: load(0) },
      expected: { create: 1 },
    },
    {
      name: 'cold start: one request waiting and no worker starts one',
      input: { lbLoad: load(0, 1) },
      expected: { create: 1 },
    },
    {
      name: 'in flight + waiting per scalerValue: ceil((3 + 2) / 2) = 3',
      input: { workers: [worker('a')], lbLoad: load(3, 2, ['a']) },
      expected: { create: 2 },
    },
    {
      name: 'capped at workersMax',
      input: { workers: [worker('a')], lbLoad: load(40, 0, ['a']) },
      expected: { create: 3 },
    },
    {
      name: 'a busy worker is never stopped, even idle long before',
      input: {
        workers: [idle('a', 60_000), worker('b')],
        lbLoad: load(1, 0, ['a']),
      },
      expected: {},
    },
    {
      name: 'the idle worker past idleTimeout goes, the busy one stays',
      input: {
        endpoint: lbEndpoint({ scalerValue: 1 }),
        workers: [idle('a', 60_000), idle('b', 60_000)],
        lbLoad: load(1, 0, ['b']),
      },
      expected: { terminate: ['a'] },
    },
    {
      name: 'an idle worker within idleTimeout stays',
      input: { workers: [idle('a', 1_000)], lbLoad: load(0) },
      expected: {},
    },
    {
      name: 'the load not known yet (a new leader): nothing changes',
      input: { workers: [idle('a', 60_000)], lbLoad: null },
      expected: {},
    },
    {
      name: 'a failed worker is still replaced while the load is not known',
      input: {
        workers: [worker('a', { pod: { status: 'ERROR', statusReason: 'unhealthy' } })],
        lbLoad: null,
      },
      expected: { terminate: ['a'] },
    },
  ])('$name', ({ input, expected }) => {
    expect(buckets(plan({ endpoint: lbEndpoint(), ...input }))).toEqual({ ...NOTHING, ...expected });
  });

  it('a worker is idle since it last had no request in flight, and busy again while it has one', () => {
    const p = plan({
      endpoint: lbEndpoint({ workersMin: 2 }),
      workers: [worker('a'), idle('b', 3_000)],
      lbLoad: load(1, 0, ['b']),
    });
    expect(p.refresh).toEqual([
      { podId: 'a', idleSince: NOW },
      { podId: 'b', idleSince: null },
    ]);
  });

  it('says why, with the load as inputs', () => {
    const p = plan({ endpoint: lbEndpoint(), lbLoad: load(0, 3) });
    expect(p.create[0]).toMatchObject({
      reason: 'LB request count: ceil((0 in flight + 3 waiting) / 2) = 2',
      tally: { workersBefore: 0, workersDesired: 2, inputs: { inFlight: 0, waiting: 3 } },
    });
    expect(p.counts).toEqual({ current: 0, desired: 2 });
  });
});
