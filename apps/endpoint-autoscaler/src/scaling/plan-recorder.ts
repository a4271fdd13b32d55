import type { WorkerDesired } from '../workers/worker.entity.js';
import type {
  PlanPod,
  PlanWorker,
  PlannedRefresh,
  PlannedReissue,
  ScalingPlan,
  Tally,
} from './scaling-plan.types.js';

/** One worker of the endpoint as the plan sees it this tick. */
export interface Entry {
  worker: PlanWorker;
  pod: PlanPod | null;
  /** The pod status as seen now (TERMINATED for a created pod that is gone). */
  seen: string | null;
  idleSince: Date | null;
  /** Its pod is on a DRAINING host: replaced elsewhere first, then terminated (draining-workers.ts). */
  draining: boolean;
}

const NO_TALLY: Tally = { workersBefore: 0, workersDesired: 0, inputs: {} };

/**
 * The plan being built for one endpoint and tick, and the only way the rules (scaling-plan.ts, queue-scaling.ts,
 * lb-scaling.ts, worker-sizing.ts) add to it: each entry lands in its named bucket with its reason, and a worker
 * gets at most one new wanted state per tick.
 */
export class PlanRecorder {
  readonly plan: ScalingPlan = {
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

  /** Whether the worker was given a new wanted state this tick already. */
  hasChanged(podId: string): boolean {
    return this.changed.has(podId);
  }

  change(entry: Entry, desired: WorkerDesired, reason: string, tally = NO_TALLY, clearIdle = false): void {
    const { podId, actionSeq } = entry.worker;
    if (this.changed.has(podId)) return;
    this.changed.add(podId);
    const bucket = desired === 'RUNNING' ? 'resume' : desired === 'EXITED' ? 'stop' : 'terminate';
    this.plan[bucket].push({ podId, desired, actionSeq: actionSeq + 1, clearIdle, reason, tally });
  }

  reissueCommand(worker: PlanWorker, command: PlannedReissue['command'], reason: string): void {
    this.plan.reissue.push({ podId: worker.podId, command, actionSeq: worker.actionSeq, reason });
  }

  drop(podId: string, failed: boolean, reason: string): void {
    this.plan.drop.push({ podId, failed, reason });
  }

  refresh(podId: string, fields: Omit<PlannedRefresh, 'podId'>): void {
    const existing = this.plan.refresh.find((r) => r.podId === podId);
    if (existing) Object.assign(existing, fields);
    else this.plan.refresh.push({ podId, ...fields });
  }
}
