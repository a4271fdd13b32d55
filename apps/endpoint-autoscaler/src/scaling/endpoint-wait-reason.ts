import {
  ErrorCode,
  PodStatus,
  podWaitReason,
  type EndpointThrottle,
  type PodView,
  type QueueStats,
  type WaitReason,
  type WaitReasonCode,
} from '@app/contracts';

/**
 * Why an endpoint's jobs wait (docs/adr/0039-live-fleet.md), decided from the control loop's snapshot and nothing
 * else: no bus, no database, no clock of its own. The tracker (wait-reason-tracker.ts) gathers the input, this
 * decides, the tracker keeps the answer for `endpoint.qry.get` (and so /health and the jobs' status).
 */

/** How many worker failures within the window make a crash loop. */
export const CRASH_LOOP_MIN_FAILURES = 2;
/** How far back worker failures count towards a crash loop. */
export const CRASH_LOOP_WINDOW_MS = 10 * 60_000;

export type StartingPhase = 'PLACING' | 'PULLING_IMAGE' | 'STARTING_CONTAINER' | 'WAITING_FOR_WORKER';
/** Furthest along first: the phase shown is that of the worker closest to taking a job. */
const PHASES: readonly StartingPhase[] = [
  'WAITING_FOR_WORKER',
  'STARTING_CONTAINER',
  'PULLING_IMAGE',
  'PLACING',
];
const PHASE_WORDS: Record<StartingPhase, string> = {
  PLACING: 'is being placed on a host',
  PULLING_IMAGE: 'is pulling its image',
  STARTING_CONTAINER: 'is starting its container',
  WAITING_FOR_WORKER: 'runs, and its worker has not asked for a job yet',
};

export interface WaitWorker {
  podId: string;
  /** False until pod-lifecycle answered its create. */
  created: boolean;
  desired: string;
  /** When the autoscaler last changed what it wants of it (a start's request). */
  desiredSince: Date;
  pod: Pick<PodView, 'status' | 'desiredStatus' | 'statusReason' | 'lastStatusChange'> | null;
}

/** The endpoint's workers that failed lately (terminated by the loop: their pod ERROR, or EXITED by itself). */
export interface WorkerFailures {
  count: number;
  firstAt: Date;
  lastAt: Date;
  lastPodId: string | null;
  /** The pod's status reason as the loop recorded it (the driver's sentence). */
  lastReason: string;
}

export interface WaitInput {
  endpoint: { workersMax: number; gpuIds: string[]; locations: string[] };
  /** Where its workers may run, in the scheduler's ids; only needed (and given) for a capacity refusal. */
  placement?: { gpuTypeIds: string[]; dataCenterIds: string[] } | null;
  workers: WaitWorker[];
  stats: Pick<QueueStats, 'inQueue' | 'inProgress' | 'initializingWorkerIds' | 'workers'> | null;
  /** Its latest refused create or resume that still holds it back (ScalingThrottles). */
  throttle: EndpointThrottle | null;
  failures: WorkerFailures | null;
  now: Date;
}

/** Workers that run and have asked for a job: they take what is queued. */
export function readyWorkers(workers: WaitWorker[], initializing: readonly string[]): WaitWorker[] {
  const starting = new Set(initializing);
  return workers.filter(
    (w) => w.desired === 'RUNNING' && w.pod?.status === PodStatus.Running && !starting.has(w.podId),
  );
}

/** The reason, with `since` the moment its condition began as the snapshot tells it (keepSince carries it on). */
export function endpointWaitReason(input: WaitInput): WaitReason | null {
  const { endpoint, workers, stats, throttle, failures, now } = input;
  const at = now.toISOString();
  if (endpoint.workersMax === 0) {
    return {
      code: 'NO_WORKERS_ALLOWED',
      message: 'the endpoint may have no worker (workersMax is 0)',
      since: at,
    };
  }
  // A worker waiting for a job: nothing holds a job back.
  if ((stats?.workers.idle ?? 0) > 0) return null;
  const ready = readyWorkers(workers, stats?.initializingWorkerIds ?? []);
  const wanted = workers.filter((w) => w.desired === 'RUNNING');

  const pulling = wanted
    .map((w) => (w.pod ? podWaitReason(w.pod) : null))
    .find((r) => r?.code === 'IMAGE_PULL_FAILED');
  if (pulling) return { ...pulling, message: `a worker's image cannot be pulled: ${pulling.message}` };
  if (!ready.length && failures) {
    const failed = failureReason(failures);
    if (failed) return failed;
  }
  if (throttle) return refusalReason(throttle, input.placement ?? null, endpoint);

  const starting = wanted.flatMap((w) => {
    const phase = phaseOf(w, stats?.initializingWorkerIds ?? []);
    return phase ? [{ worker: w, phase }] : [];
  });
  if (starting.length) {
    const phase = PHASES.find((p) => starting.some((s) => s.phase === p))!;
    const first = starting.find((s) => s.phase === phase)!;
    const since = new Date(Math.min(...starting.map((s) => s.worker.desiredSince.getTime()))).toISOString();
    const more = starting.length > 1 ? ` (${starting.length} workers starting)` : '';
    return {
      code: 'WORKER_STARTING',
      message: `a worker ${PHASE_WORDS[phase]}${more}`,
      since,
      details: { phase, podId: first.worker.podId, starting: starting.length },
    };
  }
  if ((stats?.inQueue ?? 0) > 0 && ready.length >= endpoint.workersMax) {
    return {
      code: 'MAX_WORKERS_REACHED',
      message: `all ${endpoint.workersMax} workers the endpoint may have are busy`,
      since: at,
      details: { workersMax: endpoint.workersMax },
    };
  }
  if ((stats?.inQueue ?? 0) > 0 && ready.length) {
    // Workers are up and busy, and may be more: the jobs wait their turn (the scaler adds one when its rule says).
    return {
      code: 'QUEUED_BEHIND_OTHERS',
      message: `${ready.length} worker(s) busy with the jobs ahead`,
      since: at,
      details: { busyWorkers: ready.length },
    };
  }
  return null;
}

/**
 * `next` with the `since` of `previous` when it is the same condition (same code): a reason read twice says how
 * long it has held, not when it was last looked at.
 */
export function keepSince(previous: WaitReason | null, next: WaitReason | null): WaitReason | null {
  if (!next || !previous || previous.code !== next.code) return next;
  return { ...next, since: previous.since };
}

function phaseOf(worker: WaitWorker, initializing: readonly string[]): StartingPhase | null {
  if (!worker.created) return 'PLACING';
  switch (worker.pod?.status) {
    case PodStatus.Provisioning:
      return 'PULLING_IMAGE';
    case PodStatus.Starting:
      return 'STARTING_CONTAINER';
    case PodStatus.Running:
      return initializing.includes(worker.podId) ? 'WAITING_FOR_WORKER' : null;
    default:
      return null;
  }
}

/** IMAGE_PULL_FAILED from a single failure that says so; WORKERS_CRASH_LOOPING from repeated ones. */
function failureReason(failures: WorkerFailures): WaitReason | null {
  const pod = podWaitReason({
    status: PodStatus.Error,
    desiredStatus: PodStatus.Exited,
    statusReason: failures.lastReason,
    lastStatusChange: failures.lastAt.toISOString(),
  });
  if (pod?.code === 'IMAGE_PULL_FAILED') {
    return { ...pod, message: `a worker's image cannot be pulled: ${pod.message}` };
  }
  if (failures.count < CRASH_LOOP_MIN_FAILURES) return null;
  const exitCode = pod?.details?.exitCode;
  return {
    code: 'WORKERS_CRASH_LOOPING',
    message: `${failures.count} workers failed in the last ${CRASH_LOOP_WINDOW_MS / 60_000} minutes; the last: ${failures.lastReason}`,
    since: failures.firstAt.toISOString(),
    details: {
      restarts: failures.count,
      lastError: failures.lastReason,
      ...(typeof exitCode === 'number' ? { exitCode } : {}),
      ...(failures.lastPodId ? { podId: failures.lastPodId } : {}),
    },
  };
}

const REFUSALS: Partial<Record<string, WaitReasonCode>> = {
  [ErrorCode.QuotaExceeded]: 'QUOTA_EXCEEDED',
  [ErrorCode.SpendLimitReached]: 'SPEND_LIMIT_REACHED',
  [ErrorCode.CapacityUnavailable]: 'NO_CAPACITY',
  HOSTS_UNAVAILABLE: 'HOSTS_UNAVAILABLE',
};
/** A capacity refusal because the hosts that would do are out of service, as the scheduler words it. */
const HOSTS_OUT = /\b(unhealthy|cordoned|draining|drained)\b/i;

function refusalReason(
  throttle: EndpointThrottle,
  placement: WaitInput['placement'],
  endpoint: WaitInput['endpoint'],
): WaitReason {
  let code = REFUSALS[throttle.code] ?? 'THROTTLED';
  if (code === 'NO_CAPACITY' && HOSTS_OUT.test(throttle.message)) code = 'HOSTS_UNAVAILABLE';
  const base = { code, message: throttle.message, since: throttle.since };
  if (code === 'THROTTLED') return { ...base, details: { refusal: throttle.code } };
  if (code !== 'NO_CAPACITY' && code !== 'HOSTS_UNAVAILABLE') return base;
  const gpuTypeIds = placement?.gpuTypeIds ?? [];
  const dataCenterIds = placement?.dataCenterIds ?? [];
  const where = dataCenterIds.length ? dataCenterIds.join(', ') : 'any data center';
  return {
    ...base,
    message: `no room for a worker on ${gpuTypeIds.length ? gpuTypeIds.join(', ') : endpoint.gpuIds.join(', ')} in ${where}: ${throttle.message}`,
    details: { gpuTypeIds, dataCenterIds, pools: endpoint.gpuIds, locations: endpoint.locations },
  };
}
