import { PodStatus } from '@app/contracts';
import { desiredLbWorkers } from './desired-workers.js';
import { retireDraining, splitDraining } from './draining-workers.js';
import type { Entry, PlanRecorder } from './plan-recorder.js';
import type { PlanInput, Tally } from './scaling-plan.types.js';
import { resize, trackIdle } from './worker-sizing.js';

/**
 * A load-balancing endpoint: sized on the requests the gateways hold (in flight and waiting), each worker idle
 * since it last had none in flight; a worker with a request in flight is never stopped (and pod-lifecycle drains
 * the one that is: no new request, the ones under way finish); workers on a draining host are replaced first, then
 * terminated (draining-workers.ts). Left as it is while the load is not known yet.
 */
export function scaleLb(recorder: PlanRecorder, input: PlanInput, entries: Entry[]): void {
  const load = input.lbLoad;
  if (!load) return;
  const { endpoint } = input;
  const live = entries.filter((e) => e.worker.desired === 'RUNNING');
  const running = live.filter((e) => e.pod?.status === PodStatus.Running);
  const decision = desiredLbWorkers({
    scalerValue: endpoint.scalerValue,
    workersMin: endpoint.workersMin,
    workersMax: endpoint.workersMax,
    inFlight: load.inFlight,
    waiting: load.waiting,
  });
  recorder.plan.counts = { current: live.length, desired: decision.desired };
  const tally: Tally = {
    workersBefore: live.length,
    workersDesired: decision.desired,
    inputs: { inFlight: load.inFlight, waiting: load.waiting },
  };
  const busy = new Set(load.busyWorkerIds);
  trackIdle(recorder, input, live, (entry) => !busy.has(entry.worker.podId));
  const { serving, draining } = splitDraining(live);
  const runningServing = running.filter((e) => !e.draining);
  const keep = runningServing.filter((e) => busy.has(e.worker.podId));
  resize(
    recorder,
    input,
    entries,
    { serving: serving.length, running: runningServing, keep },
    decision,
    tally,
  );
  // A draining worker with a request in flight finishes it first (pod-lifecycle drains the one that is stopped).
  const inFlight = new Set(draining.filter((e) => busy.has(e.worker.podId)));
  retireDraining(recorder, draining, runningServing.length, decision.desired, tally, inFlight);
}
