import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode, Subjects, type EndpointThrottle, type GpuTypeView } from '@app/contracts';
import { EndpointCommands } from '../../../../test/support/endpoint-autoscaler-commands.js';
import type { HandlerHarness } from '../../../../test/support/handler-harness.js';
import { StandInCommands } from '../../../../test/support/stand-in-commands.js';
import { Clock } from '../clock.js';
import { EndpointAutoscalerConfig } from '../endpoint-autoscaler.config.js';
import { autoscalerMetrics } from './autoscaler.metrics.js';
import { PlacementCatalog } from './placement-catalog.js';
import { PlanRecorder } from './plan-recorder.js';
import { ScalingApplier } from './scaling-applier.js';
import { ScalingEventEntity, type ScalingAction } from './scaling-event.entity.js';
import { ScalingEventsRepository } from './scaling-events.repository.js';
import { ScalingStateRepository } from './scaling-state.repository.js';
import { ScalingThrottles } from './scaling-throttles.js';
import { WorkerPods } from './worker-pods.js';

/**
 * Why an endpoint waits, over endpoint-autoscaler's real schema: the applier records each refused create with
 * since when the endpoint waits (carried from the refusal before it) and counts it per endpoint and code; the
 * reader says why while no create or resume has gone through since (the endpoint's view carries it:
 * get-endpoint.handler.int-spec.ts).
 * Back-off 5 s: a refusal says why for 60 s (twice the longest back-off, the spend limit's 30 s).
 */

class SetClock extends Clock {
  at = new Date();
  override now(): Date {
    return this.at;
  }
}

const QUOTA = 'quota exceeded: team-a holds 8 of its 8 ADA_24 GPUs';
let commands: EndpointCommands;
let harness: HandlerHarness;
let events: ScalingEventsRepository;
let throttles: ScalingThrottles;

beforeAll(async () => {
  commands = await EndpointCommands.start('scaling_throttles');
  harness = commands.harness;
  events = new ScalingEventsRepository(harness.dataSource);
  throttles = new ScalingThrottles(events, new EndpointAutoscalerConfig());
});

afterAll(async () => {
  await commands?.stop();
});

const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);

function event(
  endpointId: string,
  at: Date,
  action: ScalingAction,
  inputs: ScalingEventEntity['inputs'] = {},
) {
  return Object.assign(new ScalingEventEntity(), {
    id: randomUUID(),
    endpointId,
    at,
    action,
    podId: `pod-${randomUUID()}`,
    workersBefore: 0,
    workersDesired: 1,
    reason: action === 'failed' ? `worker not created: ${QUOTA}` : 'scale-up',
    inputs,
  } satisfies ScalingEventEntity);
}
const refused = (endpointId: string, at: Date, extra: ScalingEventEntity['inputs'] = {}) =>
  event(endpointId, at, 'failed', { refusedCommand: 'create', errorCode: ErrorCode.QuotaExceeded, ...extra });
const record = (...rows: ScalingEventEntity[]) =>
  harness.dataSource.transaction((manager) => events.insert(rows, manager));

describe('ScalingThrottles: why an endpoint waits', () => {
  it('is its latest refused create within the window, since what that refusal recorded (else its own time)', async () => {
    const now = new Date();
    const ep = `ep-${randomUUID()}`;
    expect(await throttles.throttled(ep, now)).toBeNull();
    const since = ago(now, 50_000).toISOString();
    await record(refused(ep, ago(now, 70_000)), refused(ep, ago(now, 3_000), { waitingSince: since }));
    const expected: EndpointThrottle = {
      code: ErrorCode.QuotaExceeded,
      message: `worker not created: ${QUOTA}`,
      since,
    };
    expect(await throttles.throttled(ep, now)).toEqual(expected);
    // A refusal recorded before waitingSince was: its own time.
    const older = `ep-${randomUUID()}`;
    await record(refused(older, ago(now, 4_000)));
    expect(await throttles.throttled(older, now)).toMatchObject({ since: ago(now, 4_000).toISOString() });
  });

  it('ends once a create or resume is decided after the refusal, or the refusal is out of the window', async () => {
    const now = new Date();
    const created = `ep-${randomUUID()}`;
    await record(refused(created, ago(now, 6_000)), event(created, ago(now, 1_000), 'create'));
    expect(await throttles.throttled(created, now)).toBeNull();
    // An attempt dated `now` is the asking tick's own: not counted.
    const ticking = `ep-${randomUUID()}`;
    await record(refused(ticking, ago(now, 6_000)), event(ticking, now, 'create'));
    expect(await throttles.throttled(ticking, now)).toMatchObject({ code: ErrorCode.QuotaExceeded });
    const stale = `ep-${randomUUID()}`;
    await record(refused(stale, ago(now, 61_000)));
    expect(await throttles.throttled(stale, now)).toBeNull();
    // A failed event that is no refusal (a pod gone outside the autoscaler) says nothing.
    const gone = `ep-${randomUUID()}`;
    await record(event(gone, ago(now, 1_000), 'failed'));
    expect(await throttles.throttled(gone, now)).toBeNull();
  });
});

describe('ScalingApplier: refused creates', () => {
  const ADA_24 = { id: 'NVIDIA GeForce RTX 4090', tier: 'ADA_24', availability: { freeGpus: 0 } };

  it('record since when the endpoint waits, carried from one refusal to the next, and count them by code', async () => {
    const clock = new SetClock();
    const queries = commands.queries.answer(Subjects.catalog.gpuTypes, () => [ADA_24 as GpuTypeView]);
    const scheduler = new StandInCommands().answer(Subjects.pod.create, () => {
      throw new DomainError(ErrorCode.QuotaExceeded, QUOTA);
    });
    const config = new EndpointAutoscalerConfig();
    const pods = new WorkerPods(
      scheduler.asBus(),
      queries.asBus(),
      new PlacementCatalog(queries.asBus(), clock),
      config,
    );
    const state = new ScalingStateRepository(harness.dataSource, commands.workers, events);
    const applier = new ScalingApplier(state, pods, clock, throttles);
    const endpoint = (await commands.endpoints.findLive((await commands.create({ name: 'over-quota' })).id))!;
    const counted = async () =>
      (await autoscalerMetrics.refusals.get()).values.find(
        (v) => v.labels.endpoint === endpoint.id && v.labels.code === ErrorCode.QuotaExceeded,
      )?.value ?? 0;
    const tick = async (now: Date) => {
      const plan = new PlanRecorder().plan;
      plan.create.push({ reason: 'scale-up', tally: { workersBefore: 0, workersDesired: 1, inputs: {} } });
      clock.at = new Date(now.getTime() + 20); // the answers are recorded after the tick began
      await applier.apply(endpoint, [], plan, now);
    };

    const first = new Date(Date.now() - 10_000);
    await tick(first);
    await tick(new Date(first.getTime() + 5_100));
    const refusals = (await events.listByEndpoint(endpoint.id)).filter((e) => e.action === 'failed');
    const firstAnswer = new Date(first.getTime() + 20).toISOString();
    expect(refusals.map((e) => e.inputs)).toEqual([
      { refusedCommand: 'create', errorCode: ErrorCode.QuotaExceeded, waitingSince: firstAnswer },
      { refusedCommand: 'create', errorCode: ErrorCode.QuotaExceeded, waitingSince: firstAnswer },
    ]);
    expect(await counted()).toBe(2);
    expect(await throttles.throttled(endpoint.id, new Date())).toEqual({
      code: ErrorCode.QuotaExceeded,
      message: `worker not created: ${QUOTA}`,
      since: firstAnswer,
    });
  });
});
