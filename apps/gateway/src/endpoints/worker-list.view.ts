import {
  PodStatus,
  type BrokerWorkerList,
  type LbWorkerState,
  type WorkerList,
  type WorkerPodRun,
  type WorkerStatus,
  type WorkerView,
} from '@app/contracts';

/**
 * `GET /v2/serverless/{id}/workers`: the broker's workers (status, jobs, pings) joined by id with their pods'
 * runs from pod-lifecycle (a worker's id is the id of the pod the autoscaler started for it). A worker without a
 * live pod of the endpoint (run elsewhere with the endpoint's key, or its pod terminated since) keeps null there.
 */
export function toWorkerList(broker: BrokerWorkerList, runs: WorkerPodRun[]): WorkerList {
  const byPod = new Map(runs.map((run) => [run.podId, run]));
  return {
    workers: broker.workers.map((worker) => {
      const run = byPod.get(worker.id);
      return {
        id: worker.id,
        podId: run?.podId ?? null,
        podStatus: run?.status ?? null,
        status: worker.status,
        currentJobs: worker.currentJobs,
        currentJobCount: worker.currentJobCount,
        restarts: run?.restarts ?? null,
        isStale: worker.isStale,
        version: worker.version,
        unhealthyReason: worker.unhealthyReason,
        registeredAt: worker.registeredAt,
        lastSeenAt: worker.lastSeenAt,
      };
    }),
    summary: broker.summary,
  };
}

/** What an LB worker's last `/ping` (ADR 26) says, in the workers list's vocabulary. */
const LB_STATUS: Record<LbWorkerState, WorkerStatus> = {
  ready: 'IDLE',
  initializing: 'INITIALIZING',
  unhealthy: 'UNHEALTHY',
  draining: 'UNHEALTHY',
};

const LB_UNHEALTHY_REASON: Partial<Record<LbWorkerState, string>> = {
  unhealthy: 'its /ping did not answer 200 or 204',
  draining: 'draining: out of the rotation before it stops',
};

/**
 * `GET /v2/serverless/{id}/workers` of a load-balancing endpoint: its workers never register with the queue
 * broker, so they are its pods (pod-lifecycle's runs, stopped ones left out) with the state of their last /ping as
 * this gateway heard it (`states`, by pod id); a pod not announced yet is INITIALIZING. A ready worker with a
 * request of this gateway replica in flight (`inFlight`, by pod id) is RUNNING (another replica's requests are
 * not seen here: with several replicas a busy worker may show IDLE on one). They hold no jobs, and
 * `registeredAt` is when their container last started (`now` before it first did).
 */
export function toLbWorkerList(
  runs: WorkerPodRun[],
  states: ReadonlyMap<string, LbWorkerState>,
  now: Date,
  inFlight: ReadonlyMap<string, number> = new Map(),
): WorkerList {
  const workers: WorkerView[] = runs
    .filter((run) => run.status !== PodStatus.Exited && run.status !== PodStatus.Terminated)
    .map((run) => {
      const state = states.get(run.podId);
      return {
        id: run.podId,
        podId: run.podId,
        podStatus: run.status,
        status: !state
          ? 'INITIALIZING'
          : state === 'ready' && (inFlight.get(run.podId) ?? 0) > 0
            ? 'RUNNING'
            : LB_STATUS[state],
        currentJobs: [],
        currentJobCount: 0,
        restarts: run.restarts,
        isStale: false,
        version: null,
        unhealthyReason: (state && LB_UNHEALTHY_REASON[state]) ?? null,
        registeredAt: run.lastStartedAt ?? now.toISOString(),
        lastSeenAt: null,
      };
    });
  const count = (status: WorkerStatus) => workers.filter((w) => w.status === status).length;
  return {
    workers,
    summary: {
      total: workers.length,
      running: count('RUNNING'),
      idle: count('IDLE'),
      initializing: count('INITIALIZING'),
      throttled: count('THROTTLED'),
      unhealthy: count('UNHEALTHY'),
    },
  };
}
