import { describe, expect, it } from '@jest/globals';
import { parseStatusReason, podWaitReason, type PodReasonInput } from './pod-reason.js';
import { PodStatus } from './pod-status.js';

const AT = '2026-12-06T10:00:00.000Z';
const pod = (status: PodStatus, statusReason: string | null, desiredStatus: PodStatus = PodStatus.Running) =>
  ({ status, desiredStatus, statusReason, lastStatusChange: AT }) satisfies PodReasonInput;

describe('podWaitReason', () => {
  it('is null for a RUNNING pod nothing threatens: the reason clears once it runs', () => {
    expect(podWaitReason(pod(PodStatus.Running, null))).toBeNull();
    expect(podWaitReason(pod(PodStatus.Running, 'some sentence'))).toBeNull();
  });

  it.each([
    [PodStatus.Provisioning, null, 'PROVISIONING', /image is being pulled/],
    [PodStatus.Starting, null, 'STARTING', /container is starting/],
    [PodStatus.Terminated, 'terminated by the user', 'TERMINATED', /by the user/],
    [PodStatus.Exited, 'stopped by the user', 'EXITED', /stopped by the user/],
    [PodStatus.Error, 'the runtime (simulated) failed: boom', 'ERROR', /boom/],
  ] as const)('%s (%s) → %s', (status, statusReason, code, message) => {
    expect(podWaitReason(pod(status, statusReason))).toEqual({
      code,
      message: expect.stringMatching(message),
      since: AT,
    });
  });

  it('names the exit code of a container that exited, as the drivers write it', () => {
    expect(podWaitReason(pod(PodStatus.Exited, 'the container exited with code 0'))).toEqual({
      code: 'EXITED',
      message: 'the container exited with code 0',
      since: AT,
      details: { exitCode: 0 },
    });
    expect(podWaitReason(pod(PodStatus.Error, 'the process exited with code 3'))?.details).toEqual({
      exitCode: 3,
    });
  });

  it.each([
    ['PREEMPTED', PodStatus.Exited, 'PREEMPTED: by u2 for pod-9 (high, quota reclaimed)'],
    ['HOST_DRAINED', PodStatus.Exited, "HOST_DRAINED: host h1's drain deadline passed"],
    ['HOST_UNHEALTHY', PodStatus.Error, 'HOST_UNHEALTHY: GPU 3 of h1 reported Xid 79'],
    ['HOST_GONE', PodStatus.Error, 'HOST_GONE: host h1 left the fleet'],
  ] as const)('%s from a `%s` status reason, the sentence as the message', (code, status, statusReason) => {
    expect(podWaitReason(pod(status, statusReason))).toEqual({
      code,
      message: statusReason.slice(code.length + 2),
      since: AT,
    });
  });

  it.each([
    'ErrImagePull: rpc error: pull access denied for nosuch/image',
    'ImagePullBackOff: Back-off pulling image "nosuch/image"',
    'cannot pull acme/worker: registry credential ra-1 cannot be opened (bad key)',
  ])('IMAGE_PULL_FAILED for an ERROR pod that says %s', (statusReason) => {
    expect(podWaitReason(pod(PodStatus.Error, statusReason))?.code).toBe('IMAGE_PULL_FAILED');
  });

  it('HOST_DRAINING on a RUNNING pod with the notice, since the notice, its deadline in details', () => {
    const notice = 'HOST_DRAINING: host h1 drains: kernel upgrade; stopped at 2026-12-06T11:00:00.000Z';
    const noticed = { ...pod(PodStatus.Running, null), hostNotice: notice };
    expect(
      podWaitReason({
        ...noticed,
        hostNoticeAt: '2026-12-06T10:30:00.000Z',
        stopDeadline: '2026-12-06T11:00:00.000Z',
      }),
    ).toEqual({
      code: 'HOST_DRAINING',
      message: 'host h1 drains: kernel upgrade; stopped at 2026-12-06T11:00:00.000Z',
      since: '2026-12-06T10:30:00.000Z',
      details: { deadline: '2026-12-06T11:00:00.000Z' },
    });
    // The status reason never carries the notice: a drain called off (no notice) leaves no reason.
    expect(podWaitReason(pod(PodStatus.Running, notice))).toBeNull();
  });
});

describe('parseStatusReason', () => {
  it('reads a known code in front, and nothing else', () => {
    expect(parseStatusReason('PREEMPTED: by u2')).toEqual({ code: 'PREEMPTED', sentence: 'by u2' });
    expect(parseStatusReason('CrashLoopBackOff: back-off')).toBeNull();
    expect(parseStatusReason('NOT_A_CODE: x')).toBeNull();
    expect(parseStatusReason(null)).toBeNull();
  });
});
