import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type EndpointMetrics } from '@app/contracts';
import { refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { JobCommands, ago } from '../../../../../test/support/queue-broker-jobs.js';
import { EndpointMetricsHandler } from './endpoint-metrics.handler.js';
import { RollupCache } from './rollup-cache.js';

/**
 * `job.qry.metrics` (GET /v2/serverless/{id}/metrics) over queue-broker's real schema: jobs finished by its
 * commands minutes before the test's clock (the handler reads the clock), their events folded into the rollups as
 * the metrics leader folds them.
 */

const EP = 'ep-metrics';
const MINUTE = 60_000;

let commands: JobCommands;
let harness: HandlerHarness;
/** The starts of the minutes the jobs finished in: two completed, then one failed and one cancelled. */
let firstMinute: string;
let secondMinute: string;

beforeAll(async () => {
  commands = await JobCommands.start('endpoint_metrics');
  harness = commands.harness;
  harness.register(new EndpointMetricsHandler(new RollupCache(commands.metrics)));
  const now = Date.now();
  const at = (seconds: number) => ago(now, seconds);
  const minuteOf = (seconds: number) =>
    new Date(Math.floor((now - seconds * 1000) / MINUTE) * MINUTE).toISOString();
  firstMinute = minuteOf(300);
  secondMinute = minuteOf(180);

  const ids: string[] = [];
  for (let n = 0; n < 4; n += 1) ids.push((await commands.submit(EP, { n }, at(400))).id);
  await commands.take(EP, 'worker-1', at(390));
  await commands.done(EP, 'worker-1', ids[0], { output: 0 }, at(300));
  await commands.done(EP, 'worker-1', ids[1], { output: 1 }, at(300));
  await commands.done(EP, 'worker-1', ids[2], { error: 'boom' }, at(180));
  await harness.send(Subjects.job.cancel, { endpointId: EP, jobId: ids[3] }, at(180));
  const other = await commands.submit('ep-elsewhere', { n: 'x' }, at(400));
  await commands.take('ep-elsewhere', 'worker-2', at(390));
  await commands.done('ep-elsewhere', 'worker-2', other.id, { output: 'x' }, at(300));
  await commands.foldEvents();
});

afterAll(async () => {
  await commands?.stop();
});

const metrics = (endpointId: string, window: string) =>
  harness.query(Subjects.job.metrics, { endpointId, window });
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('endpoint metrics', () => {
  it("answers the hour's totals and its minute steps, each job counted in the minute it finished", async () => {
    const answer: EndpointMetrics = await metrics(EP, '1h');
    expect(answer).toMatchObject({ endpointId: EP, window: '1h', stepSeconds: 60 });
    expect(answer.totals.jobs).toEqual({ completed: 2, failed: 1, cancelled: 1, timedOut: 0, retried: 0 });
    // Two finished after 90 s of execution, one after 210 s; the cancelled one's time counts as it stood.
    expect(answer.totals.executionTime.count).toBe(4);
    const { t, jobs } = answer.series;
    expect(t).toHaveLength(60);
    expect(answer.from).toBe(t[0]);
    const first = t.indexOf(firstMinute);
    const second = t.indexOf(secondMinute);
    expect(jobs.completed[first]).toBe(2);
    expect(jobs.failed[second]).toBe(1);
    expect(jobs.cancelled[second]).toBe(1);
    expect([sum(jobs.completed), sum(jobs.failed), sum(jobs.cancelled)]).toEqual([2, 1, 1]);
  });

  it('answers the day in hour steps with the same totals', async () => {
    const answer = await metrics(EP, '24h');
    expect(answer).toMatchObject({ window: '24h', stepSeconds: 3600 });
    expect(answer.series.t).toHaveLength(24);
    expect(answer.totals.jobs).toEqual({ completed: 2, failed: 1, cancelled: 1, timedOut: 0, retried: 0 });
  });

  it("counts nothing of another endpoint's, and an endpoint without jobs as zeros", async () => {
    expect((await metrics('ep-elsewhere', '1h')).totals.jobs.completed).toBe(1);
    const empty = await metrics('ep-empty', '5m');
    expect(empty.totals.jobs).toEqual({ completed: 0, failed: 0, cancelled: 0, timedOut: 0, retried: 0 });
    expect(empty.series.jobs.completed).toEqual([0, 0, 0, 0, 0]);
  });

  it('refuses a window it does not have (422)', async () => {
    expect(await refusalOf(metrics(EP, '2h'))).toMatchObject({ code: ErrorCode.ValidationFailed });
  });
});
