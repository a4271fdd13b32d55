import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PodStatus,
  Subjects,
  bucketLowerMs,
  bucketOf,
  bucketUpperMs,
  type EndpointMetrics,
  type LatencySummary,
  type PodStatusChangedEvent,
} from '@app/contracts';
import type { EventEnvelope } from '@app/messaging';
import { metricsRegistry } from '@app/observability';
import type { HandlerHarness } from '../../../../test/support/handler-harness.js';
import { JobCommands } from '../../../../test/support/queue-broker-jobs.js';
import { QueueBrokerConfig } from '../queue-broker.config.js';
import { EndpointMetricsHandler } from './endpoint-metrics/endpoint-metrics.handler.js';
import { RollupCache } from './endpoint-metrics/rollup-cache.js';
import { FollowWorkerPodsHandler } from './follow-worker-pods/follow-worker-pods.handler.js';
import { GaugeSampler } from './sample-gauges/gauge.sampler.js';
import { WorkerStartsRepository } from './worker-starts.repository.js';

/**
 * Cold start phases over queue-broker's real schema: the autoscaler's register (decided, placed), pod-lifecycle's
 * status events of the worker pods (STARTING, RUNNING) and the workers' first job requests, counted by the metrics
 * leader's sample as cold starts with their phases, and summarised by `job.qry.metrics` and Prometheus.
 */

const EP = 'ep-phases';
let commands: JobCommands;
let harness: HandlerHarness;
let starts: WorkerStartsRepository;
let follower: FollowWorkerPodsHandler;
/** The test's clock: every time is this many ms after `base` (a few minutes ago). */
let base: number;
const t = (ms: number) => new Date(base + ms);
const iso = (ms: number) => t(ms).toISOString();

function podEvent(
  podId: string,
  status: PodStatus,
  ms: number,
  endpointId: string | null = EP,
): EventEnvelope<PodStatusChangedEvent> {
  return {
    eventId: `evt-${podId}-${status}-${ms}`,
    subject: Subjects.pod.statusChanged,
    occurredAt: iso(ms),
    correlationId: `corr-${podId}`,
    payload: {
      podId,
      ownerId: 'alice',
      clusterId: null,
      rank: null,
      status,
      previousStatus: null,
      hostId: 'host-1',
      publicIp: null,
      portMappings: {},
      at: iso(ms),
      endpointId,
    },
  };
}

/** Handles a pod status event as the broker's consumer does: in a transaction of its own. */
const follow = (event: EventEnvelope<PodStatusChangedEvent>) =>
  harness.dataSource.transaction((manager) =>
    follower.handle({ event, manager, emit: () => Promise.resolve() }),
  );

function expectNear(summary: LatencySummary, ms: number): void {
  expect(summary.count).toBe(1);
  const i = bucketOf(ms);
  expect(summary.p50!).toBeGreaterThanOrEqual(Math.floor(bucketLowerMs(i)));
  expect(summary.p50!).toBeLessThanOrEqual(Math.ceil(bucketUpperMs(i)));
  expect(summary.p99).toBe(summary.p50);
}

beforeAll(async () => {
  commands = await JobCommands.start('cold_phases');
  harness = commands.harness;
  starts = new WorkerStartsRepository();
  follower = new FollowWorkerPodsHandler(starts);
  harness.register(new EndpointMetricsHandler(new RollupCache(commands.metrics)));
  base = Math.floor(Date.now() / 1000) * 1000 - 180_000;

  // w1: decided at 0, placed at 150, pulled by 2150, running at 3650, first request at 4050.
  await follow(podEvent('w1', PodStatus.Provisioning, 10));
  await harness.send(
    Subjects.worker.register,
    { endpointId: EP, workerId: 'w1', decidedAt: iso(0), placedAt: iso(150) },
    { issuedAt: iso(160) },
  );
  await follow(podEvent('w1', PodStatus.Starting, 2150));
  await follow(podEvent('w1', PodStatus.Running, 3650));
  // Its pod restarted later: the first RUNNING stands.
  await follow(podEvent('w1', PodStatus.Running, 9000));
  await commands.take(EP, 'w1', { issuedAt: iso(4050) });

  // w2: its pod ran before its registration was applied, which did not say when it was decided; no STARTING.
  await follow(podEvent('w2', PodStatus.Running, 1300));
  await harness.send(Subjects.worker.register, { endpointId: EP, workerId: 'w2' }, { issuedAt: iso(500) });
  await commands.take(EP, 'w2', { issuedAt: iso(1800) });

  // Another pod's events (no endpoint) record nothing.
  await follow(podEvent('user-pod', PodStatus.Running, 100, null));

  const sampler = new GaugeSampler(commands.metrics, starts, new QueueBrokerConfig());
  await sampler.tick(t(10_000));
  // A second sample counts nothing twice.
  await sampler.tick(t(20_000));
});

afterAll(async () => {
  await commands?.stop();
});

describe('cold start phases', () => {
  it('records each start’s times from the register and the first pod statuses, in either order', async () => {
    const rows = await harness.dataSource.query<Record<string, Date | null>[]>(
      `SELECT worker_id, decided_at, placed_at, starting_at, running_at FROM queue_broker.worker_starts
       ORDER BY worker_id`,
    );
    expect(rows).toEqual([
      { worker_id: 'w1', decided_at: t(0), placed_at: t(150), starting_at: t(2150), running_at: t(3650) },
      { worker_id: 'w2', decided_at: null, placed_at: t(500), starting_at: null, running_at: t(1300) },
    ]);
  });

  it('summarises each phase over the window, leaving out the phases a start did not record', async () => {
    const metrics: EndpointMetrics = await harness.query(Subjects.job.metrics, {
      endpointId: EP,
      window: '5m',
    });
    expect(metrics.totals.coldStarts).toBe(2);
    const { placement, runtimeStart, imagePull, containerStart, workerReady } =
      metrics.totals.coldStartPhases;
    expectNear(placement, 150);
    expectNear(imagePull, 2000);
    expectNear(containerStart, 1500);
    expect(runtimeStart.count).toBe(2);
    expect(workerReady.count).toBe(2);
    // w2's runtime start (800 ms) is p50, w1's (3500 ms) p99; worker ready: w1 400 ms, w2 500 ms.
    for (const [summary, low, high] of [
      [runtimeStart, 800, 3500],
      [workerReady, 400, 500],
    ] as const) {
      expect(summary.p50!).toBeGreaterThanOrEqual(Math.floor(bucketLowerMs(bucketOf(low))));
      expect(summary.p50!).toBeLessThanOrEqual(Math.ceil(bucketUpperMs(bucketOf(low))));
      expect(summary.p99!).toBeGreaterThanOrEqual(Math.floor(bucketLowerMs(bucketOf(high))));
      expect(summary.p99!).toBeLessThanOrEqual(Math.ceil(bucketUpperMs(bucketOf(high))));
    }
    // Each in the step of its worker's first request.
    const step = metrics.series.t.indexOf(new Date(Math.floor(base / 60_000) * 60_000).toISOString());
    const inSteps = metrics.series.coldStartPhases.runtimeStart.count;
    expect(inSteps.reduce((a, b) => a + b, 0)).toBe(2);
    expect(inSteps[step] + (inSteps[step + 1] ?? 0)).toBe(2);
    const day = await harness.query(Subjects.job.metrics, { endpointId: EP, window: '24h' });
    expect(day.totals.coldStartPhases).toEqual(metrics.totals.coldStartPhases);
  });

  it('exports a histogram per phase under the endpoint label', async () => {
    const text = await metricsRegistry.metrics();
    const count = (phase: string) =>
      new RegExp(
        `endpoint_worker_cold_start_phase_seconds_count\\{endpoint="${EP}",phase="${phase}"\\} (\\d+)`,
      ).exec(text)?.[1];
    expect(
      ['placement', 'runtime_start', 'image_pull', 'container_start', 'worker_ready'].map(count),
    ).toEqual(['1', '2', '1', '1', '2']);
  });

  it('the sweep forgets the starts of workers gone for a day, and keeps the others', async () => {
    await follow(podEvent('lb-worker', PodStatus.Running, 0));
    await harness.dataSource.transaction((manager) => starts.prune(t(1000), manager));
    const left = await harness.dataSource.query<{ worker_id: string }[]>(
      'SELECT worker_id FROM queue_broker.worker_starts ORDER BY worker_id',
    );
    expect(left.map((row) => row.worker_id)).toEqual(['w1', 'w2']);
  });

  it('counts a start whose RUNNING comes after the first take once it came, or once it settled', async () => {
    const LATE = 'ep-late';
    const coldStarts = async () => {
      const metrics: EndpointMetrics = await harness.query(Subjects.job.metrics, {
        endpointId: LATE,
        window: '5m',
      });
      return metrics.totals;
    };
    const sampler = new GaugeSampler(commands.metrics, starts, new QueueBrokerConfig());
    // w3 asks for its first job before its pod's RUNNING is applied; w4's RUNNING never comes.
    for (const worker of ['w3', 'w4']) {
      await harness.send(
        Subjects.worker.register,
        { endpointId: LATE, workerId: worker, decidedAt: iso(30_000), placedAt: iso(30_100) },
        { issuedAt: iso(30_100) },
      );
      await follow(podEvent(worker, PodStatus.Starting, 30_200, LATE));
      await commands.take(LATE, worker, { issuedAt: iso(31_000) });
    }
    await sampler.tick(t(32_000));
    expect((await coldStarts()).coldStarts).toBe(0);
    await follow(podEvent('w3', PodStatus.Running, 30_900, LATE));
    await sampler.tick(t(33_000));
    const once = await coldStarts();
    expect(once.coldStarts).toBe(1);
    expect(once.coldStartPhases.runtimeStart.count).toBe(1);
    // Past the settling time w4 counts too, without the phases it never recorded.
    await sampler.tick(t(62_000));
    const both = await coldStarts();
    expect(both.coldStarts).toBe(2);
    expect(both.coldStartPhases.runtimeStart.count).toBe(1);
    expect(both.coldStartPhases.placement.count).toBe(2);
  });
});
