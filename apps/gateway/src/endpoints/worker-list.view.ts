import type { BrokerWorkerList, WorkerList, WorkerPodRun } from '@app/contracts';

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
