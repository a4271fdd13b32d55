import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ErrorCode, deriveId, type PodView } from '@app/contracts';
import { Clock } from '../clock.js';
import type { EndpointEntity } from '../endpoints/endpoint.entity.js';
import { EndpointThrottles } from '../endpoints/endpoint-throttles.js';
import { WorkerEntity } from '../workers/worker.entity.js';
import { autoscalerMetrics, forgetEndpointSeries } from './autoscaler.metrics.js';
import { ScalingEventEntity, type ScalingAction } from './scaling-event.entity.js';
import { COMMAND_FOR, type PlannedChange, type ScalingPlan, type Tally } from './scaling-plan.js';
import { ScalingStateRepository, noWrites, type ScalingWrites } from './scaling-state.repository.js';
import { WorkerPods, scalingReason, type PodAnswer } from './worker-pods.js';

/** One scaling event's content (its id, endpoint and time are the applier's). */
export interface ScalingRecord extends Tally {
  action: ScalingAction;
  podId: string | null;
  reason: string;
}

const ACTION_OF: Record<'resume' | 'stop' | 'terminate', ScalingAction> = {
  resume: 'resume',
  stop: 'stop',
  terminate: 'terminate',
};

/**
 * Carries a plan out. First the decision — worker rows and their scaling events — commits in one transaction,
 * before any command goes out: the commands' ids derive from those rows, so a crash after the commit issues the
 * same commands again on a later tick and nothing is done twice. Then the commands (purge, reissues, terminate
 * and stop first so their capacity is free, then resume and create); then what pod-lifecycle answered — created
 * pods, refusals and their failed events, rows of pods that are gone — commits in a second transaction. A command
 * nobody answered fails the tick after the answers that did come are recorded; the next tick issues it again.
 */
@Injectable()
export class ScalingApplier {
  private readonly logger = new Logger('autoscaler');

  constructor(
    private readonly state: ScalingStateRepository,
    private readonly pods: WorkerPods,
    private readonly clock: Clock,
    private readonly throttles: EndpointThrottles,
  ) {}

  async apply(endpoint: EndpointEntity, rows: WorkerEntity[], plan: ScalingPlan, now: Date): Promise<void> {
    // Before the endpoint's row can go: a queue left unpurged would have nobody to purge it later.
    if (plan.purgeQueue) await this.pods.purgeQueue(endpoint);
    const byId = new Map(rows.map((row) => [row.podId, row]));
    const { writes, created, changed, reasons } = this.decide(endpoint, byId, plan, now);
    await this.state.commit(writes);
    this.announce(endpoint, writes.events);
    if (plan.held.length) this.logger.debug(`endpoint ${endpoint.id}: held: ${plan.held.join('; ')}`);
    if (plan.removeEndpoint) {
      // Its record goes by a recorded command, so a replay removes it too (the loop does not run in a rebuild).
      await this.pods.removeRecord(endpoint);
      this.forget(endpoint.id);
      this.logger.log(`endpoint ${endpoint.id}: deleted; its workers are gone and its record removed`);
      return;
    }

    const answers = new Answers(endpoint.id);
    const errors: unknown[] = [];
    const settle = async (work: Promise<void>[]) => {
      for (const result of await Promise.allSettled(work)) {
        if (result.status === 'rejected') errors.push(result.reason);
      }
    };
    await settle(
      plan.reissue.map(async ({ podId, command, reason }) => {
        const row = byId.get(podId)!;
        const why = scalingReason('reissue', reason);
        if (command !== 'create') {
          return answers.command(row, command, await this.pods.command(endpoint, row, command, why));
        }
        const recorded = await this.pods.recordedCreate(endpoint, row);
        if (recorded) return answers.create(row, recorded);
        answers.create(row, await this.pods.create(endpoint, row, why), this.clock.now());
      }),
    );
    const act = (row: WorkerEntity) =>
      this.pods
        .command(endpoint, row, COMMAND_FOR[row.desired], reasons.get(row))
        .then((a) => answers.command(row, COMMAND_FOR[row.desired], a));
    await settle(changed.filter((row) => row.desired !== 'RUNNING').map(act));
    await settle(changed.filter((row) => row.desired === 'RUNNING').map(act));
    await settle(
      created.map(async (row) =>
        answers.create(row, await this.pods.create(endpoint, row, reasons.get(row)), this.clock.now()),
      ),
    );

    // A refusal records since when its endpoint waits: the one before it says, unless a create or resume went
    // through between them (asked as of the tick's time, so the attempts of this tick do not count).
    const waiting = answers.refused ? await this.throttles.throttled(endpoint.id, now) : null;
    const at = this.clock.now();
    const recorded = answers.writes(at, waiting?.since ?? at.toISOString());
    await this.state.commit(recorded);
    this.announce(endpoint, recorded.events);
    // Queue workers are announced to the broker; load-balancing ones never take jobs (the gateway routes to them).
    if (endpoint.type === 'QB') {
      await Promise.all(
        answers.registered.map((row) => this.pods.register(endpoint, row, answers.placedAt.get(row))),
      );
    }
    if (errors.length) throw errors[0];
  }

  /** Forgets the gauges of an endpoint that is gone. */
  forget(endpointId: string): void {
    forgetEndpointSeries(endpointId);
  }

  /** The plan as rows and events: what commits before any command is issued. */
  private decide(
    endpoint: EndpointEntity,
    byId: Map<string, WorkerEntity>,
    plan: ScalingPlan,
    now: Date,
  ): {
    writes: ScalingWrites;
    created: WorkerEntity[];
    changed: WorkerEntity[];
    /** Each worker's command's reason, for its actor (the owner's audit trail). */
    reasons: Map<WorkerEntity, string>;
  } {
    const writes = noWrites();
    const reasons = new Map<WorkerEntity, string>();
    const touched = new Set<WorkerEntity>();
    const event = (record: ScalingRecord) => writes.events.push(scalingEvent(endpoint.id, now, record));
    for (const { podId, podStatus, idleSince } of plan.refresh) {
      const row = byId.get(podId)!;
      if (podStatus !== undefined) row.podStatus = podStatus;
      if (idleSince !== undefined) row.idleSince = idleSince;
      touched.add(row);
    }
    for (const { podId, failed, reason } of plan.drop) {
      writes.removed.push(podId);
      touched.delete(byId.get(podId)!);
      if (failed) event({ action: 'failed', podId, reason, workersBefore: 0, workersDesired: 0, inputs: {} });
    }
    const changed: WorkerEntity[] = [];
    const change = (bucket: 'resume' | 'stop' | 'terminate', entry: PlannedChange) => {
      const row = byId.get(entry.podId)!;
      row.desired = entry.desired;
      row.actionSeq = entry.actionSeq;
      row.desiredSince = now;
      if (entry.clearIdle) row.idleSince = null;
      touched.add(row);
      changed.push(row);
      event({ action: ACTION_OF[bucket], podId: row.podId, reason: entry.reason, ...entry.tally });
      reasons.set(row, scalingReason(bucket === 'resume' ? 'scale-up' : 'scale-down', entry.reason));
    };
    for (const bucket of ['terminate', 'stop', 'resume'] as const) {
      for (const entry of plan[bucket]) change(bucket, entry);
    }
    const created = plan.create.map(({ reason, tally }) => {
      const row = newWorker(endpoint.id, now);
      event({ action: 'create', podId: row.podId, reason, ...tally });
      reasons.set(row, scalingReason('scale-up', reason));
      return row;
    });
    writes.inserted = created;
    writes.saved = [...touched];
    return { writes, created, changed, reasons };
  }

  private announce(endpoint: EndpointEntity, events: ScalingEventEntity[]): void {
    for (const e of events) {
      autoscalerMetrics.decisions.inc({ action: e.action });
      const code = e.inputs.errorCode;
      if (typeof code === 'string') autoscalerMetrics.refusals.inc({ endpoint: endpoint.id, code });
      this.logger.log(
        `endpoint ${endpoint.id}: ${e.action} worker ${e.podId ?? '-'} (${e.workersBefore} -> ${e.workersDesired}): ${e.reason}`,
      );
    }
  }
}

/**
 * What pod-lifecycle answered, as row changes and failed events. A refusal is recorded with the refused command
 * and its error code in the event's inputs: the plan's back-offs are read from those events.
 */
class Answers {
  readonly registered: WorkerEntity[] = [];
  /** When each create was answered (not known for one answered before a restart): its cold start's placement. */
  readonly placedAt = new Map<WorkerEntity, Date>();
  private readonly saved = new Set<WorkerEntity>();
  private readonly removed = new Set<string>();
  /** Rows whose wanted state a refusal changed: their `desiredSince` is the time the answer is recorded. */
  private readonly redecided: WorkerEntity[] = [];
  private readonly failures: {
    row: WorkerEntity;
    command: 'create' | 'start';
    code: string;
    reason: string;
  }[] = [];

  constructor(private readonly endpointId: string) {}

  /** Whether pod-lifecycle refused any command of this tick. */
  get refused(): boolean {
    return this.failures.length > 0;
  }

  create(row: WorkerEntity, answer: PodAnswer, answeredAt?: Date): void {
    if (answer.kind === 'applied') {
      if (answeredAt) this.placedAt.set(row, answeredAt);
      if (answer.pod.id !== row.podId) {
        throw new Error(
          `pod-lifecycle created pod ${answer.pod.id} for worker ${row.podId}: pod ids no longer derive alike`,
        );
      }
      row.created = true;
      this.seen(row, answer.pod);
      this.saved.add(row);
      this.registered.push(row);
    } else if (answer.kind === 'refused') {
      this.removed.add(row.podId);
      this.failures.push({
        row,
        command: 'create',
        code: answer.code,
        reason: `worker not created: ${answer.message}`,
      });
    } else {
      this.removed.add(row.podId);
    }
  }

  command(row: WorkerEntity, action: 'start' | 'stop' | 'terminate', answer: PodAnswer): void {
    if (answer.kind === 'applied') return this.seen(row, answer.pod);
    if (answer.kind === 'not-found') return void this.removed.add(row.podId);
    if (action !== 'start') return;
    // A stopped worker that cannot come back is replaced (its host is full, say); one refused for the owner's
    // spend limit is kept stopped and resumes once the limit allows new work again.
    const spend = answer.code === ErrorCode.SpendLimitReached;
    row.desired = spend ? 'EXITED' : 'TERMINATED';
    row.actionSeq += 1;
    this.saved.add(row);
    this.redecided.push(row);
    this.failures.push({
      row,
      command: 'start',
      code: answer.code,
      reason: `worker not resumed: ${answer.message}`,
    });
  }

  /** `waitingSince`: when the endpoint began waiting, which each refusal records (ScalingThrottles reads it). */
  writes(at: Date, waitingSince: string): ScalingWrites {
    const writes = noWrites();
    for (const row of this.redecided) row.desiredSince = at;
    writes.saved = [...this.saved].filter((row) => !this.removed.has(row.podId));
    writes.removed = [...this.removed];
    writes.events = this.failures.map(({ row, command, code, reason }) =>
      scalingEvent(this.endpointId, at, {
        action: 'failed',
        podId: row.podId,
        reason,
        workersBefore: 0,
        workersDesired: 0,
        inputs: { refusedCommand: command, errorCode: code, waitingSince },
      }),
    );
    return writes;
  }

  private seen(row: WorkerEntity, pod: PodView): void {
    if (row.podStatus === pod.status) return;
    row.podStatus = pod.status;
    this.saved.add(row);
  }
}

function newWorker(endpointId: string, now: Date): WorkerEntity {
  const commandId = randomUUID();
  return Object.assign(new WorkerEntity(), {
    // pod-lifecycle derives a created pod's id from the command id (pod.cmd.create: deriveId(id, 'pod')).
    podId: deriveId(commandId, 'pod'),
    endpointId,
    createCommandId: commandId,
    created: false,
    desired: 'RUNNING',
    podStatus: null,
    actionSeq: 0,
    desiredSince: now,
    idleSince: null,
    createdAt: now,
  } satisfies WorkerEntity);
}

function scalingEvent(endpointId: string, at: Date, record: ScalingRecord): ScalingEventEntity {
  return Object.assign(new ScalingEventEntity(), { id: randomUUID(), endpointId, at, ...record });
}
