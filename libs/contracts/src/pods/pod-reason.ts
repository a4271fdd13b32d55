import { WAIT_REASON_CODES, type WaitReason, type WaitReasonCode } from '../common/wait-reason.js';
import { PodStatus } from './pod-status.js';

/** What a pod's reason is derived from: the fields every pod view has. */
export interface PodReasonInput {
  status: PodStatus;
  desiredStatus: PodStatus;
  /** `<CODE>: <sentence>` (PREEMPTED, HOST_*), or a driver's sentence. */
  statusReason: string | null;
  /** ISO time of the last status change: since when the reason holds. */
  lastStatusChange: string;
  /** `HOST_DRAINING: …` while its host drains (pod-lifecycle's notice), given at `hostNoticeAt`. */
  hostNotice?: string | null;
  hostNoticeAt?: string | null;
  /** When the drain stops it. */
  stopDeadline?: string | null;
}

/** Status reasons written as `<CODE>: <sentence>` whose code is one a pod view shows as is. */
const CODED: ReadonlySet<WaitReasonCode> = new Set([
  'PREEMPTED',
  'HOST_DRAINING',
  'HOST_DRAINED',
  'HOST_UNHEALTHY',
  'HOST_GONE',
]);

/** The drivers' words for an image that cannot be pulled (Kubernetes' waiting reasons, the simulated driver's). */
const IMAGE_PULL = /\b(ErrImagePull|ImagePullBackOff|ErrImageNeverPull|InvalidImageName)\b|^cannot pull\b/;
const EXIT_CODE = /exited with code (-?\d+)/;
/** An ISO time in a drain notice's sentence: its deadline. */
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/;

/** `PREEMPTED: by … ` → {code, sentence}; null for a sentence without a known code in front. */
export function parseStatusReason(reason: string | null): { code: WaitReasonCode; sentence: string } | null {
  const match = reason?.match(/^([A-Z][A-Z_]+): ([\s\S]*)$/);
  if (!match) return null;
  const code = match[1] as WaitReasonCode;
  return (WAIT_REASON_CODES as readonly string[]).includes(code) ? { code, sentence: match[2] } : null;
}

/**
 * Why a pod is not RUNNING (or, RUNNING, why it will not stay so: its host drains), from its status, what its user
 * wants and the status reason the owner wrote; null for a RUNNING pod nothing threatens. Pure, and in the contracts
 * because two surfaces derive it: pod-lifecycle for every pod view, and the gateway for a cluster member the
 * scheduler placed before pod-lifecycle created it. `since` is the last status change: the reason holds since then.
 */
export function podWaitReason(pod: PodReasonInput): WaitReason | null {
  const since = pod.lastStatusChange;
  const coded = parseStatusReason(pod.statusReason);
  const reason = (code: WaitReasonCode, message: string, details?: Record<string, unknown>): WaitReason =>
    details ? { code, message, since, details } : { code, message, since };
  const exitCode = pod.statusReason?.match(EXIT_CODE);
  const exit = exitCode ? { exitCode: Number(exitCode[1]) } : undefined;

  switch (pod.status) {
    case PodStatus.Running: {
      // A RUNNING pod has a reason only when its host drains: the notice pod-lifecycle gave it, with the deadline.
      const notice = parseStatusReason(pod.hostNotice ?? null);
      if (notice?.code !== 'HOST_DRAINING') return null;
      const deadline = pod.stopDeadline ?? notice.sentence.match(ISO_TIME)?.[0];
      const drain: WaitReason = {
        code: 'HOST_DRAINING',
        message: notice.sentence,
        since: pod.hostNoticeAt ?? since,
      };
      return deadline ? { ...drain, details: { deadline } } : drain;
    }
    case PodStatus.Provisioning:
      return reason(
        'PROVISIONING',
        pod.statusReason ?? 'placed on a host: its image is being pulled and its container created',
      );
    case PodStatus.Starting:
      return reason('STARTING', pod.statusReason ?? 'the container is starting');
    case PodStatus.Terminated:
      return reason('TERMINATED', pod.statusReason ?? 'terminated');
    case PodStatus.Exited:
    case PodStatus.Error: {
      if (coded && CODED.has(coded.code)) return reason(coded.code, coded.sentence);
      if (pod.status === PodStatus.Error && pod.statusReason && IMAGE_PULL.test(pod.statusReason)) {
        return reason('IMAGE_PULL_FAILED', pod.statusReason);
      }
      if (pod.status === PodStatus.Error) {
        return reason('ERROR', pod.statusReason ?? 'the runtime reported an error', exit);
      }
      return reason('EXITED', pod.statusReason ?? 'stopped', exit);
    }
  }
}
