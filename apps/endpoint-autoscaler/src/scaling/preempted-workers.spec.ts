import { describe, expect, it } from '@jest/globals';
import { PREEMPTED_REASON } from '@app/contracts';
import {
  planScaling,
  type PlanEndpoint,
  type PlanInput,
  type PlanPod,
  type PlanWorker,
  type ScalingPlan,
} from './scaling-plan.js';

/**
 * The plan for a worker whose pod the scheduler preempted (pod-lifecycle stopped it with a PREEMPTED reason): it is
 * terminated, never resumed on its host, and the scaler replaces it with a create, which the usual back-off holds
 * while creates are refused (QUOTA_EXCEEDED among them).
 */

const NOW = new Date('2026-11-24T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const PREEMPTED = `${PREEMPTED_REASON}: by team-b for pod-x (high, priority)`;

const endpoint = (overrides: Partial<PlanEndpoint> = {}): PlanEndpoint => ({
  type: 'QB',
  deletedAt: null,
  flashBoot: false,
  idleTimeout: 5,
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  workersMin: 0,
  workersMax: 3,
  ...overrides,
});

/** A worker row and its pod; by default wanted RUNNING since a second ago (a fresh resume: not stuck yet). */
function worker(podId: string, pod: PlanPod, row: Partial<PlanWorker> = {}): PlanInput['workers'][number] {
  return {
    worker: {
      podId,
      created: true,
      desired: 'RUNNING',
      podStatus: pod.status,
      actionSeq: 2,
      desiredSince: ago(1_000),
      idleSince: null,
      ...row,
    },
    pod,
  };
}
const exited = (statusReason: string): PlanPod => ({
  status: 'EXITED',
  desiredStatus: 'EXITED',
  statusReason,
});

function plan(overrides: Partial<PlanInput> = {}): ScalingPlan {
  return planScaling({
    endpoint: endpoint(),
    workers: [],
    // One job waiting longer than scalerValue: the endpoint wants a worker.
    stats: {
      inQueue: 1,
      inQueueNonLowPriority: 1,
      inProgress: 0,
      oldestQueuedAgeMs: 10_000,
      recycleWorkerIds: [],
      initializingWorkerIds: [],
    },
    refusals: { createRefusedAt: null, spendLimitRefusedAt: null },
    now: NOW,
    settings: { reissueAfterMs: 15_000, failureBackoffMs: 5_000, spendLimitPauseMs: 30_000 },
    ...overrides,
  });
}

const summary = (p: ScalingPlan) => ({
  create: p.create.length,
  resume: p.resume.map((c) => c.podId),
  terminate: p.terminate.map((c) => `${c.podId}: ${c.reason}`),
  reissue: p.reissue.map((r) => `${r.podId}:${r.command}`),
});

describe('planScaling: a preempted worker', () => {
  it('is terminated and replaced by a create, not resumed on its host', () => {
    const p = plan({ workers: [worker('w-preempted', exited(PREEMPTED))] });
    expect(summary(p)).toEqual({
      create: 1,
      resume: [],
      terminate: [`w-preempted: worker pod was preempted: ${PREEMPTED}`],
      reissue: [],
    });
    expect(p.terminate[0]).toMatchObject({ desired: 'TERMINATED', actionSeq: 3 });
  });

  it('unlike a worker stopped for another reason, whose resume is sent again while it is fresh', () => {
    const p = plan({ workers: [worker('w-stopped', exited('stopped by the user'))] });
    expect(summary(p)).toEqual({ create: 0, resume: [], terminate: [], reissue: ['w-stopped:start'] });
  });

  it('is not one of the stopped FLASHBOOT workers a scale-up resumes: it goes, the others come back first', () => {
    const stopped = { desired: 'EXITED' as const, desiredSince: ago(60_000) };
    const p = plan({
      endpoint: endpoint({ flashBoot: true }),
      workers: [
        worker('w-kept', exited('stopped by the user'), stopped),
        worker('w-preempted', exited(PREEMPTED), { ...stopped, desiredSince: ago(1_000) }),
      ],
    });
    expect(summary(p)).toEqual({
      create: 0,
      resume: ['w-kept'],
      terminate: [`w-preempted: worker pod was preempted: ${PREEMPTED}`],
      reissue: [],
    });
  });

  it('is replaced only once the back-off of a refused create (QUOTA_EXCEEDED, say) is over', () => {
    const refusedAt = (ms: number) => ({ createRefusedAt: ago(ms), spendLimitRefusedAt: null });
    const held = plan({ workers: [worker('w-preempted', exited(PREEMPTED))], refusals: refusedAt(2_000) });
    expect(summary(held)).toMatchObject({ create: 0, terminate: [expect.stringMatching(/^w-preempted: /)] });
    expect(held.held).toEqual(['a create was refused: no new worker for 3 s more']);
    // Its row gone once its pod is terminated, the back-off over: the replacement is asked for again.
    expect(summary(plan({ refusals: refusedAt(6_000) }))).toMatchObject({ create: 1 });
  });

  it('already being terminated is left to that terminate', () => {
    const p = plan({
      stats: null,
      endpoint: endpoint({ type: 'LB' }),
      lbLoad: null,
      workers: [worker('w-going', exited(PREEMPTED), { desired: 'TERMINATED' })],
    });
    expect(summary(p)).toEqual({ create: 0, resume: [], terminate: [], reissue: ['w-going:terminate'] });
  });
});
