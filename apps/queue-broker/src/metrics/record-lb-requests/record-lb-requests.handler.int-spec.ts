import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ErrorCode, Subjects, observe, type EndpointMetrics, type LbRequestTally } from '@app/contracts';
import { refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { JobCommands, ago } from '../../../../../test/support/queue-broker-jobs.js';
import { EndpointMetricsHandler } from '../endpoint-metrics/endpoint-metrics.handler.js';
import { RollupCache } from '../endpoint-metrics/rollup-cache.js';
import { LbRollupsRepository } from './lb-rollups.repository.js';
import { RecordLbRequestsHandler } from './record-lb-requests.handler.js';

/**
 * `job.cmd.record-lb-requests` over queue-broker's real schema and MessageProcessor: two gateways' counts of an LB
 * endpoint added to the rollups, read back by `job.qry.metrics` (GET /v2/serverless/{id}/metrics), beside a queue
 * endpoint's job rollups in the same table.
 */

const EP = 'ep-lb-metrics';
const MINUTE = 60_000;

let commands: JobCommands;
let harness: HandlerHarness;
let minute: string;
let issuedAt: string;

const hist = (...ms: number[]) => ms.reduce((h, v) => observe(h, v), [] as number[]);
const tally = (counts: Partial<LbRequestTally>, latencies: number[]): LbRequestTally => ({
  endpointId: EP,
  minute,
  status2xx: 0,
  status4xx: 0,
  status5xx: 0,
  proxyErrors: 0,
  latencyHist: hist(...latencies),
  ...counts,
});
const record = (payload: unknown, commandId = randomUUID()) =>
  harness.send(Subjects.job.recordLbRequests, payload, { commandId, issuedAt });
const metrics = (endpointId: string, window: string): Promise<EndpointMetrics> =>
  harness.query(Subjects.job.metrics, { endpointId, window });

beforeAll(async () => {
  commands = await JobCommands.start('lb_request_metrics');
  harness = commands.harness;
  harness.register(
    new RecordLbRequestsHandler(new LbRollupsRepository()),
    new EndpointMetricsHandler(new RollupCache(commands.metrics)),
  );
  const now = Date.now();
  minute = new Date(Math.floor((now - 120_000) / MINUTE) * MINUTE).toISOString();
  issuedAt = ago(now, 120).issuedAt!;
});

afterAll(async () => {
  await commands?.stop();
});

describe('LB request metrics', () => {
  it("adds every gateway's counts once, by status class, with their latencies and the workers' peaks", async () => {
    const first = randomUUID();
    const gatewayA = {
      gatewayId: 'gw-a',
      requests: [tally({ status2xx: 8, status4xx: 1 }, [10, 10, 10, 10, 10, 10, 10, 10, 10])],
      workers: [{ endpointId: EP, running: 1, idle: 1, initializing: 0, unhealthy: 0 }],
    };
    expect(await record(gatewayA, first)).toEqual({ rows: 2 });
    // The same command again (a redelivery, or a gateway's retry of a flush it did not hear answered): once.
    await record(gatewayA, first);
    await record({
      gatewayId: 'gw-b',
      requests: [tally({ status5xx: 1, proxyErrors: 2 }, [1000, 2000, 60_000])],
      workers: [{ endpointId: EP, running: 2, idle: 0, initializing: 1, unhealthy: 0 }],
    });

    const answer = await metrics(EP, '1h');
    expect(answer.totals.lb).toMatchObject({
      requests: { status2xx: 8, status4xx: 1, status5xx: 1, proxyErrors: 2 },
      total: 12,
      errorRate: 3 / 12,
    });
    expect(answer.totals.lb.latency.count).toBe(12);
    expect(answer.totals.lb.latency.p50).toBeLessThanOrEqual(10 * 1.19);
    expect(answer.totals.lb.latency.p99).toBeGreaterThan(60_000 / 1.19);
    const step = answer.series.t.indexOf(minute);
    expect(step).toBeGreaterThanOrEqual(0);
    expect(answer.series.lb.requests.status2xx[step]).toBe(8);
    expect(answer.series.lb.requests.proxyErrors[step]).toBe(2);
    expect(answer.series.lb.latency.count[step]).toBe(12);
    // Gauges keep the peak over the replicas' reports.
    expect(answer.series.workers.running[step]).toBe(2);
    expect(answer.series.workers.idle[step]).toBe(1);
    expect(answer.series.workers.initializing[step]).toBe(1);
    expect(answer.series.lb.requests.status2xx.reduce((a, b) => a + b, 0)).toBe(8);

    const day = await metrics(EP, '24h');
    expect(day.totals.lb.requests).toEqual(answer.totals.lb.requests);
    expect(day.totals.lb.latency.count).toBe(12);
  });

  it("leaves a queue endpoint's job figures apart, and an endpoint without LB requests at zero", async () => {
    const job = await commands.submit('ep-queue', { n: 1 }, ago(Date.now(), 100));
    await commands.take('ep-queue', 'worker-q', ago(Date.now(), 90));
    await commands.done('ep-queue', 'worker-q', job.id, { output: 1 }, ago(Date.now(), 80));
    await commands.foldEvents();
    const queue = await metrics('ep-queue', '1h');
    expect(queue.totals.jobs.completed).toBe(1);
    expect(queue.totals.lb).toMatchObject({ total: 0, errorRate: null });
    expect(queue.totals.lb.latency.count).toBe(0);
  });

  it('refuses counts that are not counts', async () => {
    const bad = { gatewayId: 'gw', requests: [tally({ status2xx: -1 }, [])], workers: [] };
    expect(await refusalOf(record(bad))).toMatchObject({ code: ErrorCode.ValidationFailed });
  });
});
