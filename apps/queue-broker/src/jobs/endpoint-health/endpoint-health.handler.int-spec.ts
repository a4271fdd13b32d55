import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { JobCommands, ago, slowClockConfig } from '../../../../../test/support/queue-broker-jobs.js';
import { QueueStatsReader } from '../queue-stats/queue-stats.reader.js';
import { EndpointHealthHandler } from './endpoint-health.handler.js';

/**
 * `job.qry.health` (GET /health) over queue-broker's real schema: jobs and workers made by its commands, dated back
 * from the test's clock, and the job events those commands committed folded into the metrics rollups. Each count
 * differs from the others, so one reported in another's place shows. Workers are lost after an hour here.
 */

const EP = 'ep-health';

let commands: JobCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await JobCommands.start('endpoint_health');
  harness = commands.harness;
  const { jobs, workers } = commands.workerCommands;
  harness.register(
    new EndpointHealthHandler(new QueueStatsReader(jobs, commands.metrics, workers, slowClockConfig())),
  );
  const now = Date.now();
  const at = (seconds: number) => ago(now, seconds);

  for (const worker of ['worker-idle-1', 'worker-idle-2', 'worker-idle-3']) {
    await commands.take(EP, worker, at(1000));
  }
  await commands.register(EP, 'worker-new-1', at(950));
  await commands.register(EP, 'worker-new-2', at(950));
  const ids: string[] = [];
  for (let n = 0; n < 10; n += 1) ids.push((await commands.submit(EP, { n }, at(900 - n))).id);
  // Six taken: three completed, two failed (one of them retried, so queued again), one still running.
  await commands.take(EP, 'worker-busy', at(890), 6);
  for (const id of ids.slice(0, 3)) await commands.done(EP, 'worker-busy', id, { output: id }, at(880));
  for (const id of ids.slice(3, 5)) await commands.done(EP, 'worker-busy', id, { error: 'boom' }, at(870));
  await harness.send(Subjects.job.retry, { endpointId: EP, jobId: ids[3] }, at(860));
  await commands.submit('ep-elsewhere', { n: 'x' }, at(100));
  await commands.foldEvents();
});

afterAll(async () => {
  await commands?.stop();
});

const health = (endpointId: string) => harness.query(Subjects.job.health, { endpointId });

describe('endpoint health', () => {
  it("reports the endpoint's jobs now and over the window, and its workers by state", async () => {
    expect(await health(EP)).toEqual({
      jobs: { completed: 3, failed: 2, inProgress: 1, inQueue: 5, retried: 1 },
      workers: { idle: 3, running: 1, initializing: 2, unhealthy: 0 },
    });
  });

  it("reports nothing of another endpoint's", async () => {
    expect(await health('ep-elsewhere')).toEqual({
      jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 1, retried: 0 },
      workers: { idle: 0, running: 0, initializing: 0, unhealthy: 0 },
    });
  });

  it('refuses a query without an endpoint (422)', async () => {
    expect(await refusalOf(harness.query(Subjects.job.health, {}))).toMatchObject({
      code: ErrorCode.ValidationFailed,
    });
  });
});
