import { describe, expect, it } from '@jest/globals';
import { PodStatus, type WaitReason } from '@app/contracts';
import {
  CRASH_LOOP_MIN_FAILURES,
  endpointWaitReason,
  keepSince,
  type WaitInput,
  type WaitWorker,
} from './endpoint-wait-reason.js';

const NOW = new Date('2026-12-06T10:00:00.000Z');
const ASKED = new Date('2026-12-06T09:59:50.000Z');
const AT = '2026-12-06T09:59:55.000Z';

const worker = (podId: string, status: PodStatus | null, statusReason: string | null = null): WaitWorker => ({
  podId,
  created: status !== null,
  desired: 'RUNNING',
  desiredSince: ASKED,
  pod: status ? { status, desiredStatus: PodStatus.Running, statusReason, lastStatusChange: AT } : null,
});

function input(
  over: Partial<WaitInput> = {},
  stats: Partial<NonNullable<WaitInput['stats']>> = {},
): WaitInput {
  return {
    endpoint: { workersMax: 2, gpuIds: ['AMPERE_16'], locations: [] },
    workers: [],
    stats: {
      inQueue: 1,
      inProgress: 0,
      initializingWorkerIds: [],
      workers: { idle: 0, running: 0, initializing: 0, unhealthy: 0 },
      ...stats,
    },
    throttle: null,
    failures: null,
    now: NOW,
    ...over,
  };
}

const failures = (count: number, lastReason: string) => ({
  count,
  firstAt: new Date('2026-12-06T09:55:00.000Z'),
  lastAt: new Date('2026-12-06T09:59:00.000Z'),
  lastPodId: 'pod-9',
  lastReason,
});

describe('endpointWaitReason', () => {
  it('is null when a worker waits for a job, or nothing holds the queue', () => {
    expect(
      endpointWaitReason(input({}, { workers: { idle: 1, running: 0, initializing: 0, unhealthy: 0 } })),
    ).toBeNull();
    expect(endpointWaitReason(input({}, { inQueue: 0 }))).toBeNull();
    expect(endpointWaitReason(input())).toBeNull();
  });

  it('NO_WORKERS_ALLOWED with workersMax 0', () => {
    const reason = endpointWaitReason(input({ endpoint: { workersMax: 0, gpuIds: [], locations: [] } }));
    expect(reason).toMatchObject({ code: 'NO_WORKERS_ALLOWED', since: NOW.toISOString() });
  });

  it.each([
    ['QUOTA_EXCEEDED', 'QUOTA_EXCEEDED', 'would exceed the GPU quota'],
    ['SPEND_LIMIT_REACHED', 'SPEND_LIMIT_REACHED', 'the monthly spend limit is reached'],
    ['CAPACITY_UNAVAILABLE', 'NO_CAPACITY', 'no host has 1 free GPU'],
    ['CAPACITY_UNAVAILABLE', 'HOSTS_UNAVAILABLE', 'the hosts with room are cordoned or draining'],
    ['CONFLICT', 'THROTTLED', 'something else'],
  ])('a refusal %s → %s, since the throttle began', (refusal, code, message) => {
    const reason = endpointWaitReason(
      input({
        throttle: { code: refusal, message, since: AT },
        placement: { gpuTypeIds: ['NVIDIA RTX A4000'], dataCenterIds: ['EU-RO-1'] },
      }),
    );
    expect(reason).toMatchObject({ code, since: AT, message: expect.stringContaining(message) });
  });

  it('NO_CAPACITY names the GPU types and data centers allowed', () => {
    const reason = endpointWaitReason(
      input({
        throttle: { code: 'CAPACITY_UNAVAILABLE', message: 'no room', since: AT },
        placement: { gpuTypeIds: ['NVIDIA RTX A4000', 'NVIDIA A40'], dataCenterIds: ['EU-RO-1'] },
      }),
    );
    expect(reason?.message).toMatch(/NVIDIA RTX A4000, NVIDIA A40 in EU-RO-1/);
    expect(reason?.details).toMatchObject({
      gpuTypeIds: ['NVIDIA RTX A4000', 'NVIDIA A40'],
      dataCenterIds: ['EU-RO-1'],
      pools: ['AMPERE_16'],
    });
  });

  it.each([
    ['PLACING', worker('pod-1', null)],
    ['PULLING_IMAGE', worker('pod-1', PodStatus.Provisioning)],
    ['STARTING_CONTAINER', worker('pod-1', PodStatus.Starting)],
  ] as const)('WORKER_STARTING in phase %s, since the worker was asked for', (phase, w) => {
    expect(endpointWaitReason(input({ workers: [w] }))).toEqual({
      code: 'WORKER_STARTING',
      message: expect.any(String),
      since: ASKED.toISOString(),
      details: { phase, podId: 'pod-1', starting: 1 },
    });
  });

  it('WAITING_FOR_WORKER while a RUNNING pod has not asked for a job, and clears once it has', () => {
    const w = worker('pod-1', PodStatus.Running);
    expect(
      endpointWaitReason(input({ workers: [w] }, { initializingWorkerIds: ['pod-1'] }))?.details,
    ).toMatchObject({
      phase: 'WAITING_FOR_WORKER',
    });
    // It took the job: busy, the queue empty.
    expect(endpointWaitReason(input({ workers: [w] }, { inQueue: 0, inProgress: 1 }))).toBeNull();
  });

  it('shows the phase of the worker closest to taking a job', () => {
    const workers = [worker('pod-1', null), worker('pod-2', PodStatus.Starting)];
    expect(endpointWaitReason(input({ workers }))).toMatchObject({
      message: expect.stringMatching(/2 workers starting/),
      details: { phase: 'STARTING_CONTAINER', podId: 'pod-2', starting: 2 },
    });
  });

  it('MAX_WORKERS_REACHED when every worker it may have is busy and jobs queue', () => {
    const workers = [worker('pod-1', PodStatus.Running), worker('pod-2', PodStatus.Running)];
    expect(endpointWaitReason(input({ workers }, { inQueue: 3, inProgress: 2 }))).toMatchObject({
      code: 'MAX_WORKERS_REACHED',
      details: { workersMax: 2 },
    });
    // Below workersMax the jobs wait their turn (the scaler adds a worker when its rule says).
    expect(
      endpointWaitReason(input({ workers: workers.slice(1) }, { inQueue: 3, inProgress: 1 })),
    ).toMatchObject({
      code: 'QUEUED_BEHIND_OTHERS',
      details: { busyWorkers: 1 },
    });
  });

  it('WORKERS_CRASH_LOOPING after repeated failures with no worker up, with the exit code and the count', () => {
    const reason = endpointWaitReason(
      input({
        workers: [worker('pod-3', null)],
        failures: failures(CRASH_LOOP_MIN_FAILURES + 1, 'the process exited with code 3'),
      }),
    );
    expect(reason).toEqual({
      code: 'WORKERS_CRASH_LOOPING',
      message: expect.stringMatching(/3 workers failed .* the process exited with code 3/),
      since: '2026-12-06T09:55:00.000Z',
      details: { restarts: 3, exitCode: 3, lastError: 'the process exited with code 3', podId: 'pod-9' },
    });
    // One failure is not a loop; and a worker up and taking jobs ends it.
    expect(endpointWaitReason(input({ failures: failures(1, 'the process exited with code 3') }))).toBeNull();
    expect(
      endpointWaitReason(
        input(
          { workers: [worker('pod-4', PodStatus.Running)], failures: failures(3, 'exited with code 3') },
          { inQueue: 0, inProgress: 1 },
        ),
      ),
    ).toBeNull();
  });

  it('IMAGE_PULL_FAILED from a worker pod that cannot pull, or the last failure that could not', () => {
    const pulling = worker('pod-1', PodStatus.Error, 'ErrImagePull: pull access denied for nosuch/image');
    expect(endpointWaitReason(input({ workers: [pulling] }))).toMatchObject({
      code: 'IMAGE_PULL_FAILED',
      message: expect.stringMatching(/cannot be pulled: ErrImagePull/),
    });
    expect(
      endpointWaitReason(input({ failures: failures(1, 'ImagePullBackOff: Back-off pulling image "x"') })),
    ).toMatchObject({ code: 'IMAGE_PULL_FAILED' });
  });
});

describe('keepSince', () => {
  const starting = (since: string, phase: string): WaitReason => ({
    code: 'WORKER_STARTING',
    message: phase,
    since,
    details: { phase },
  });

  it('keeps when the condition began while the code stays, whatever else changes', () => {
    const first = starting('2026-12-06T09:00:00.000Z', 'PLACING');
    expect(keepSince(first, starting('2026-12-06T09:00:03.000Z', 'PULLING_IMAGE'))).toEqual({
      ...starting('2026-12-06T09:00:00.000Z', 'PULLING_IMAGE'),
    });
  });

  it('starts again for another code, and clears with null', () => {
    const first = starting('2026-12-06T09:00:00.000Z', 'PLACING');
    const quota: WaitReason = { code: 'QUOTA_EXCEEDED', message: 'q', since: '2026-12-06T09:01:00.000Z' };
    expect(keepSince(first, quota)).toBe(quota);
    expect(keepSince(first, null)).toBeNull();
  });
});
