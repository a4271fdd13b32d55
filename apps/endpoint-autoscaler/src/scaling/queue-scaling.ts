import { PodStatus } from '@app/contracts';
import { desiredWorkers } from './desired-workers.js';
import { retireDraining, splitDraining } from './draining-workers.js';
import type { Entry, PlanRecorder } from './plan-recorder.js';
import type { PlanInput, Tally } from './scaling-plan.types.js';
import { resize, trackIdle } from './worker-sizing.js';

/**
 * A queue-based endpoint: size it, track idleness, recycle, then scale up or down; workers on a draining host are
 * replaced first, then terminated (draining-workers.ts). `hostLost` workers were terminated this tick because their
 * host was lost or drained: they count as current for the sizing, so the capacity they held is replaced at once
 * (not only once a job has waited scalerValue seconds).
 */
export function scaleQueue(recorder: PlanRecorder, input: PlanInput, entries: Entry[], hostLost = 0): void {
  const { endpoint } = input;
  const stats = input.stats;
  if (!stats) throw new Error('a queue-based endpoint is planned with its queue statistics');
  const live = entries.filter((e) => e.worker.desired === 'RUNNING');
  const running = live.filter((e) => e.pod?.status === PodStatus.Running);
  // A worker is starting until it asks for a job: its pod may be RUNNING while the worker loads its model.
  const initializing = new Set(stats.initializingWorkerIds);
  const ready = running.filter((e) => !initializing.has(e.worker.podId));
  const decision = desiredWorkers({
    scalerType: endpoint.scalerType,
    scalerValue: endpoint.scalerValue,
    workersMin: endpoint.workersMin,
    workersMax: endpoint.workersMax,
    current: live.length + hostLost,
    starting: live.length - ready.length,
    inQueue: stats.inQueueNonLowPriority,
    inProgress: stats.inProgress,
    oldestQueuedMs: stats.inQueueNonLowPriority > 0 ? stats.oldestQueuedAgeMs : null,
  });
  recorder.plan.counts = { current: live.length, desired: decision.desired };
  const { serving, draining } = splitDraining(live);
  const tally: Tally = {
    workersBefore: live.length,
    workersDesired: decision.desired,
    inputs: {
      inQueue: stats.inQueue,
      inQueueNonLowPriority: stats.inQueueNonLowPriority,
      inProgress: stats.inProgress,
      oldestQueuedAgeMs: stats.oldestQueuedAgeMs,
      ...(draining.length ? { draining: draining.length } : {}),
      ...(hostLost ? { hostLost } : {}),
    },
  };

  // Live workers are idle since the endpoint last had nothing queued or in progress (kept in the table).
  const busy = stats.inProgress > 0 || stats.inQueue > 0;
  trackIdle(recorder, input, live, () => !busy);

  // Workers that asked to be recycled (`stopPod: true`) are terminated; the scaler replaces them if needed.
  const recycle = new Set(stats.recycleWorkerIds);
  for (const entry of live.filter((e) => recycle.has(e.worker.podId))) {
    recorder.change(entry, 'TERMINATED', 'the worker asked to be recycled (stopPod)');
  }

  // Nothing is stopped while the endpoint has a job in progress (queue-stats has no per-worker leases).
  const runningServing = running.filter((e) => !e.draining);
  const keep = stats.inProgress > 0 ? runningServing : [];
  resize(
    recorder,
    input,
    entries,
    { serving: serving.length, running: runningServing, keep },
    decision,
    tally,
  );
  const readyServing = ready.filter((e) => !e.draining).length;
  retireDraining(recorder, draining, readyServing, decision.desired, tally);
}
