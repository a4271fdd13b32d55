import { PodStatus } from '@app/contracts';
import type { WorkerDesired } from '../workers/worker.entity.js';
import { desiredLbWorkers, desiredWorkers, type ScalingDecision } from './desired-workers.js';
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
  type Tally,
} from './scaling-plan.types.js';

export * from './scaling-plan.types.js';

/**
 * What the control loop does for one endpoint on one tick, decided from plain data and nothing else: no bus, no
 * database, no clock of its own. The reconciler gathers the snapshot, this module decides, the applier carries the
 * plan out. Built like Nomad's and Kubernetes' reconcilers: the observed state in, named buckets out, each entry
 * with the reason that goes to the scaling event and the log line.
 */

interface Entry {
  worker: PlanWorker;
  pod: PlanPod | null;
  /** The pod status as seen now (TERMINATED for a created pod that is gone). */
  seen: string | null;
  idleSince: Date | null;
}

const NO_TALLY: Tally = { workersBefore: 0, workersDesired: 0, inputs: {} };

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
  private readonly plan: ScalingPlan = {
    create: [],
    resume: [],
    stop: [],
    terminate: [],
    reissue: [],
    drop: [],
    refresh: [],
    purgeQueue: false,
    removeEndpoint: false,
    held: [],
    counts: null,
  };
  /** Workers already given a new wanted state this tick: one change per worker and tick. */
  private readonly changed = new Set<string>();

  constructor(private readonly input: PlanInput) {}

  build(): ScalingPlan {
    const entries = this.input.workers.map(({ worker, pod }) => this.observe(worker, pod));
    if (this.input.endpoint.deletedAt) {
      this.retire(entries);
      return this.plan;
    }
    const remaining = entries.filter((entry) => !this.cleanUp(entry));
    const kept = remaining.filter((entry) => this.reissue(entry));
    if (this.input.endpoint.type === 'LB') this.scaleLb(kept);
    else this.scale(kept);
    return this.plan;
  }

  private observe(worker: PlanWorker, pod: PlanPod | null): Entry {
    const seen = worker.created ? (pod?.status ?? PodStatus.Terminated) : worker.podStatus;
    if (worker.created && seen !== worker.podStatus)
      this.refresh(worker.podId, { podStatus: seen ?? undefined });
    return { worker, pod, seen, idleSince: worker.idleSince };
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
   * scaler replaces them); stopped workers are not kept without FLASHBOOT. True when the entry is no longer live.
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
      this.change(entry, 'TERMINATED', `worker pod failed: ${pod.statusReason ?? 'ERROR'}`);
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

  /** A queue-based endpoint: size it, track idleness, recycle, then scale up or down. */
  private scale(entries: Entry[]): void {
    const { endpoint } = this.input;
    const stats = this.input.stats;
    if (!stats) throw new Error('a queue-based endpoint is planned with its queue statistics');
    const live = entries.filter((e) => e.worker.desired === 'RUNNING');
    const running = live.filter((e) => e.pod?.status === PodStatus.Running);
    const decision = desiredWorkers({
      scalerType: endpoint.scalerType,
      scalerValue: endpoint.scalerValue,
      workersMin: endpoint.workersMin,
      workersMax: endpoint.workersMax,
      current: live.length,
      starting: live.length - running.length,
      inQueue: stats.inQueueNonLowPriority,
      inProgress: stats.inProgress,
      oldestQueuedMs: stats.inQueueNonLowPriority > 0 ? stats.oldestQueuedAgeMs : null,
    });
    this.plan.counts = { current: live.length, desired: decision.desired };
    const tally: Tally = {
      workersBefore: live.length,
      workersDesired: decision.desired,
      inputs: {
        inQueue: stats.inQueue,
        inQueueNonLowPriority: stats.inQueueNonLowPriority,
        inProgress: stats.inProgress,
        oldestQueuedAgeMs: stats.oldestQueuedAgeMs,
      },
    };

    // Live workers are idle since the endpoint last had nothing queued or in progress (kept in the table).
    const busy = stats.inProgress > 0 || stats.inQueue > 0;
    this.trackIdle(live, () => !busy);

    // Workers that asked to be recycled (`stopPod: true`) are terminated; the scaler replaces them if needed.
    const recycle = new Set(stats.recycleWorkerIds);
    for (const entry of live.filter((e) => recycle.has(e.worker.podId))) {
      this.change(entry, 'TERMINATED', 'the worker asked to be recycled (stopPod)');
    }

    // Nothing is stopped while the endpoint has a job in progress (queue-stats has no per-worker leases).
    const keep = stats.inProgress > 0 ? running : [];
    this.resize(entries, running, decision, tally, keep);
  }

  /**
   * A load-balancing endpoint: sized on the requests the gateways hold (in flight and waiting), each worker idle
   * since it last had none in flight; a worker with a request in flight is never stopped (and pod-lifecycle drains
   * the one that is: no new request, the ones under way finish). Left as it is while the load is not known yet.
   */
  private scaleLb(entries: Entry[]): void {
    const load = this.input.lbLoad;
    if (!load) return;
    const { endpoint } = this.input;
    const live = entries.filter((e) => e.worker.desired === 'RUNNING');
    const running = live.filter((e) => e.pod?.status === PodStatus.Running);
    const decision = desiredLbWorkers({
      scalerValue: endpoint.scalerValue,
      workersMin: endpoint.workersMin,
      workersMax: endpoint.workersMax,
      inFlight: load.inFlight,
      waiting: load.waiting,
    });
    this.plan.counts = { current: live.length, desired: decision.desired };
    const tally: Tally = {
      workersBefore: live.length,
      workersDesired: decision.desired,
      inputs: { inFlight: load.inFlight, waiting: load.waiting },
    };
    const busy = new Set(load.busyWorkerIds);
    this.trackIdle(live, (entry) => !busy.has(entry.worker.podId));
    this.resize(
      entries,
      running,
      decision,
      tally,
      running.filter((e) => busy.has(e.worker.podId)),
    );
  }

  /** A RUNNING worker with nothing to do is idle since it first was (kept in the table); any other is not. */
  private trackIdle(live: Entry[], hasNothingToDo: (entry: Entry) => boolean): void {
    const { now } = this.input;
    for (const entry of live) {
      const idle = entry.pod?.status === PodStatus.Running && hasNothingToDo(entry);
      const idleSince = idle ? (entry.worker.idleSince ?? now) : null;
      if ((entry.idleSince?.getTime() ?? null) !== (idleSince?.getTime() ?? null)) {
        entry.idleSince = idleSince;
        this.refresh(entry.worker.podId, { idleSince });
      }
    }
  }

  private resize(
    entries: Entry[],
    running: Entry[],
    decision: ScalingDecision,
    tally: Tally,
    keep: Entry[],
  ): void {
    const live = tally.workersBefore;
    if (decision.desired > live) this.scaleUp(entries, decision.desired - live, decision.reason, tally);
    else if (decision.desired < live) {
      const kept = new Set(keep);
      this.scaleDown(
        running.filter((e) => !kept.has(e)),
        decision.reason,
        tally,
      );
    }
  }

  /**
   * FLASHBOOT resumes stopped workers first (most recently stopped first), then creates the rest. A resume that is
   * refused is replaced on the next tick, when that worker no longer counts.
   */
  private scaleUp(entries: Entry[], missing: number, reason: string, tally: Tally): void {
    const { endpoint, refusals, settings, now } = this.input;
    const spendHeld = heldFor(refusals.spendLimitRefusedAt, settings.spendLimitPauseMs, now);
    if (spendHeld !== null) {
      this.plan.held.push(`spend limit reached: no worker created or resumed for ${spendHeld} s more`);
      return;
    }
    if (endpoint.flashBoot) {
      const stopped = entries
        .filter((e) => e.worker.desired === 'EXITED' && e.pod?.status === PodStatus.Exited)
        .sort((a, b) => b.worker.desiredSince.getTime() - a.worker.desiredSince.getTime())
        .slice(0, missing);
      for (const entry of stopped) this.change(entry, 'RUNNING', reason, tally);
      missing -= stopped.length;
    }
    if (missing <= 0) return;
    const backoff = heldFor(refusals.createRefusedAt, settings.failureBackoffMs, now);
    if (backoff !== null) {
      this.plan.held.push(`a create was refused: no new worker for ${backoff} s more`);
      return;
    }
    for (let i = 0; i < missing; i++) this.plan.create.push({ reason, tally });
  }

  /**
   * RUNNING workers idle for at least idleTimeout go, oldest idle first (stopped with FLASHBOOT, else
   * terminated). The caller leaves out the workers that must not go (a job or a request in flight).
   */
  private scaleDown(running: Entry[], reason: string, tally: Tally): void {
    const { endpoint, now } = this.input;
    const idleFor = endpoint.idleTimeout * 1000;
    const idleMs = (e: Entry) => (e.idleSince ? now.getTime() - e.idleSince.getTime() : -1);
    const candidates = running
      .filter((e) => !this.changed.has(e.worker.podId) && e.idleSince && idleMs(e) >= idleFor)
      .sort((a, b) => idleMs(b) - idleMs(a))
      .slice(0, tally.workersBefore - tally.workersDesired);
    for (const entry of candidates) {
      const idleS = Math.round(idleMs(entry) / 100) / 10;
      const why = `idle ${idleS} s >= idleTimeout ${endpoint.idleTimeout} s; ${reason}`;
      this.change(entry, endpoint.flashBoot ? 'EXITED' : 'TERMINATED', why, tally, true);
    }
  }

  private change(
    entry: Entry,
    desired: WorkerDesired,
    reason: string,
    tally = NO_TALLY,
    clearIdle = false,
  ): void {
    const { podId, actionSeq } = entry.worker;
    if (this.changed.has(podId)) return;
    this.changed.add(podId);
    const bucket = desired === 'RUNNING' ? 'resume' : desired === 'EXITED' ? 'stop' : 'terminate';
    this.plan[bucket].push({ podId, desired, actionSeq: actionSeq + 1, clearIdle, reason, tally });
  }

  private reissueCommand(worker: PlanWorker, command: PlannedReissue['command'], reason: string): void {
    this.plan.reissue.push({ podId: worker.podId, command, actionSeq: worker.actionSeq, reason });
  }

  private drop(podId: string, failed: boolean, reason: string): void {
    this.plan.drop.push({ podId, failed, reason });
  }

  private refresh(podId: string, fields: Omit<PlannedRefresh, 'podId'>): void {
    const existing = this.plan.refresh.find((r) => r.podId === podId);
    if (existing) Object.assign(existing, fields);
    else this.plan.refresh.push({ podId, ...fields });
  }
}

/** Seconds (one decimal) a refusal at `at` still holds the endpoint back; null when it does not any more. */
function heldFor(at: Date | null, forMs: number, now: Date): number | null {
  if (!at) return null;
  const left = at.getTime() + forMs - now.getTime();
  return left > 0 ? Math.ceil(left / 100) / 10 : null;
}
