import { PREEMPTED_REASON, PodStatus } from '@app/contracts';
import type { WorkerDesired } from '../workers/worker.entity.js';
import { isHostLoss, stoppedForHost } from './draining-workers.js';
import { scaleLb } from './lb-scaling.js';
import { PlanRecorder, type Entry } from './plan-recorder.js';
import { scaleQueue } from './queue-scaling.js';
import {
  COMMAND_FOR,
  type PlanEndpoint,
  type PlanInput,
  type PlanPod,
  type PlanSettings,
  type PlanWorker,
  type PlannedRefresh,
  type PlannedReissue,
  type ScalingPlan,
} from './scaling-plan.types.js';

export * from './scaling-plan.types.js';

/**
 * What the control loop does for one endpoint on one tick, decided from plain data and nothing else: no bus, no
 * database, no clock of its own. The reconciler gathers the snapshot, this module decides, the applier carries the
 * plan out. Built like Nomad's and Kubernetes' reconcilers: the observed state in, named buckets out, each entry
 * with the reason that goes to the scaling event and the log line. This file holds what every endpoint goes
 * through (observe, retire, clean up, reissue); queue-scaling.ts and lb-scaling.ts size the two kinds, on the
 * shared idle and scale-up/down rules of worker-sizing.ts.
 */

/** How far back the refusals that can still hold an endpoint back go. */
export function refusalWindowMs(settings: PlanSettings): number {
  return Math.max(settings.failureBackoffMs, settings.spendLimitPauseMs);
}

/** Whether the plan needs the gateways' load (only load-balancing endpoints that are not deleted). */
export function needsLbLoad(endpoint: PlanEndpoint): boolean {
  return !endpoint.deletedAt && endpoint.type === 'LB';
}

/** Whether the plan needs the broker's queue statistics (only queue-based endpoints that are not deleted). */
export function needsQueueStats(endpoint: PlanEndpoint): boolean {
  return !endpoint.deletedAt && endpoint.type === 'QB';
}

export function planScaling(input: PlanInput): ScalingPlan {
  const plan = new PlanBuilder(input);
  return plan.build();
}

class PlanBuilder {
  private readonly recorder = new PlanRecorder();
  private readonly plan: ScalingPlan = this.recorder.plan;
  /** Workers terminated this tick because their host was lost or drained: the scaler replaces them at once. */
  private hostLost = 0;

  constructor(private readonly input: PlanInput) {}

  build(): ScalingPlan {
    const entries = this.input.workers.map(({ worker, pod, draining }) =>
      this.observe(worker, pod, draining ?? false),
    );
    if (this.input.endpoint.deletedAt) {
      this.retire(entries);
      return this.plan;
    }
    const remaining = entries.filter((entry) => !this.cleanUp(entry));
    const kept = remaining.filter((entry) => this.reissue(entry));
    if (this.input.endpoint.type === 'LB') scaleLb(this.recorder, this.input, kept);
    else scaleQueue(this.recorder, this.input, kept, this.hostLost);
    return this.plan;
  }

  private observe(worker: PlanWorker, pod: PlanPod | null, draining: boolean): Entry {
    const seen = worker.created ? (pod?.status ?? PodStatus.Terminated) : worker.podStatus;
    if (worker.created && seen !== worker.podStatus) {
      this.refresh(worker.podId, { podStatus: seen ?? undefined });
    }
    return { worker, pod, seen, idleSince: worker.idleSince, draining };
  }

  /** A deleted endpoint: its queue is purged, its workers terminated, and once they are gone its row removed. */
  private retire(entries: Entry[]): void {
    this.plan.purgeQueue = true;
    let left = 0;
    for (const entry of entries) {
      const { worker } = entry;
      if (!worker.created || entry.seen === PodStatus.Terminated) {
        this.drop(worker.podId, false, worker.created ? 'worker pod terminated' : 'never created');
        continue;
      }
      left += 1;
      if (worker.desired !== 'TERMINATED') this.change(entry, 'TERMINATED', 'the endpoint was deleted');
      else this.reissueCommand(worker, 'terminate', 'the endpoint was deleted: its workers are terminated');
    }
    this.plan.removeEndpoint = left === 0;
  }

  /**
   * Rows that are done with (terminated pods) go; live workers whose pod failed or vanished are terminated (the
   * scaler replaces them: at once when their host was lost), and so are workers whose pod was preempted or stopped at
   * its host's drain deadline, whatever the autoscaler wanted of them (never resumed on that host); stopped workers
   * are not kept without FLASHBOOT, nor on a draining host. True when the entry is no longer live.
   */
  private cleanUp(entry: Entry): boolean {
    const { worker, pod } = entry;
    const { now, settings, endpoint } = this.input;
    if (!worker.created) return false;
    if (entry.seen === PodStatus.Terminated) {
      const outside = worker.desired !== 'TERMINATED';
      const reason = outside ? 'worker pod was terminated outside the autoscaler' : 'worker pod terminated';
      this.drop(worker.podId, outside, reason);
      return true;
    }
    if (worker.desired === 'RUNNING' && pod?.status === PodStatus.Error) {
      if (isHostLoss(pod.statusReason)) this.hostLost += 1;
      this.change(entry, 'TERMINATED', `worker pod failed: ${pod.statusReason ?? 'ERROR'}`);
      return true;
    }
    if (worker.desired !== 'TERMINATED' && stoppedForHost(pod)) {
      // Its host's GPUs went to another workload, or its host was drained: a resume there would wait for them (or
      // be refused), a new worker is placed wherever the scheduler admits it.
      const preempted = (pod.statusReason ?? '').startsWith(PREEMPTED_REASON);
      if (!preempted && worker.desired === 'RUNNING') this.hostLost += 1;
      const why = preempted ? 'worker pod was preempted' : 'worker pod was stopped with its host';
      this.change(entry, 'TERMINATED', `${why}: ${pod.statusReason}`);
      return true;
    }
    if (worker.desired === 'EXITED' && entry.draining) {
      this.change(entry, 'TERMINATED', 'its host drains: a stopped worker is not kept there');
      return true;
    }
    const stuckSince = now.getTime() - settings.reissueAfterMs;
    if (
      worker.desired === 'RUNNING' &&
      pod?.status === PodStatus.Exited &&
      (pod.desiredStatus === PodStatus.Running || worker.desiredSince.getTime() < stuckSince)
    ) {
      this.change(entry, 'TERMINATED', `worker exited by itself: ${pod.statusReason ?? 'EXITED'}`);
      return true;
    }
    if (worker.desired === 'EXITED' && !endpoint.flashBoot) {
      this.change(entry, 'TERMINATED', 'FLASHBOOT is off: stopped workers are not kept');
      return true;
    }
    if (worker.desired !== 'TERMINATED') return false;
    // A terminate that did not take (unanswered, or a refused resume that made the worker go) is sent again.
    if (pod && pod.desiredStatus !== PodStatus.Terminated) {
      this.reissueCommand(
        worker,
        'terminate',
        `pod-lifecycle wants ${pod.desiredStatus}, the autoscaler TERMINATED`,
      );
    }
    return true;
  }

  /**
   * Issues again, with the same command id, a command whose effect pod-lifecycle does not show. A create that
   * pod-lifecycle already answered is not sent again: the applier reads its recorded outcome first. False when
   * the row goes (never created and no longer wanted).
   */
  private reissue(entry: Entry): boolean {
    const { worker, pod } = entry;
    if (!worker.created) {
      if (worker.desired !== 'RUNNING') {
        this.drop(worker.podId, false, 'never created and no longer wanted');
        return false;
      }
      this.reissueCommand(worker, 'create', 'create not answered yet');
    } else if (pod && pod.desiredStatus !== worker.desired && worker.actionSeq > 0) {
      const reason = `pod-lifecycle wants ${pod.desiredStatus}, the autoscaler ${worker.desired}`;
      this.reissueCommand(worker, COMMAND_FOR[worker.desired], reason);
    }
    return true;
  }

  private change(entry: Entry, desired: WorkerDesired, reason: string): void {
    this.recorder.change(entry, desired, reason);
  }

  private reissueCommand(worker: PlanWorker, command: PlannedReissue['command'], reason: string): void {
    this.recorder.reissueCommand(worker, command, reason);
  }

  private drop(podId: string, failed: boolean, reason: string): void {
    this.recorder.drop(podId, failed, reason);
  }

  private refresh(podId: string, fields: Omit<PlannedRefresh, 'podId'>): void {
    this.recorder.refresh(podId, fields);
  }
}
