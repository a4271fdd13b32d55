import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ErrorCode, Subjects, type QueueStats } from '@app/contracts';
import { refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { JobCommands, ago, slowClockConfig } from '../../../../../test/support/queue-broker-jobs.js';
import { QueueStatsHandler } from './queue-stats.handler.js';
import { QueueStatsReader } from './queue-stats.reader.js';

/**
 * `job.qry.queue-stats` (what the autoscaler scales on) over queue-broker's real schema: jobs and workers made by
 * its commands, dated back from the test's clock (the reader reads the clock), and the job events those commands
 * committed folded into the metrics rollups. Workers are lost after an hour here (slowClockConfig).
 */

const EP = 'ep-stats';

let commands: JobCommands;
let harness: HandlerHarness;
/** The test's clock when the state below was made. */
let now: number;

beforeAll(async () => {
  commands = await JobCommands.start('queue_stats');
  harness = commands.harness;
  const { jobs, workers } = commands.workerCommands;
  harness.register(
    new QueueStatsHandler(new QueueStatsReader(jobs, commands.metrics, workers, slowClockConfig())),
  );
  now = Date.now();
  const at = (seconds: number) => ago(now, seconds);

  // Two hours ago: a job done by a worker silent since (lost), outside the health window.
  const old = await commands.submit(EP, { n: 'old' }, at(7300));
  await commands.take(EP, 'worker-lost', at(7290));
  await commands.done(EP, 'worker-lost', old.id, { output: 1 }, at(7280));

  // 15 minutes ago: one job completed, one failed, retried and then completed; one (c) still running.
  const a = await commands.submit(EP, { n: 'a' }, at(900));
  const b = await commands.submit(EP, { n: 'b' }, at(899));
  await commands.submit(EP, { n: 'c' }, at(898));
  await commands.take(EP, 'worker-busy', at(890));
  await commands.done(EP, 'worker-busy', a.id, { output: 1 }, at(880));
  await commands.done(EP, 'worker-busy', b.id, { error: 'boom' }, at(870));
  await harness.send(Subjects.job.retry, { endpointId: EP, jobId: b.id }, at(860));
  await commands.take(EP, 'worker-busy', at(850));
  await commands.done(EP, 'worker-busy', b.id, { output: 2 }, at(840));
  await commands.take(EP, 'worker-idle', at(600));
  await commands.register(EP, 'worker-starting', at(590));
  await commands.take(EP, 'worker-sick', at(580));
  await commands.ping(EP, 'worker-sick', [], at(570), { unhealthy: true, reason: 'CUDA error' });

  // Queued: two normal jobs and a low-priority one older than both; one whose ttl has run out.
  await commands.submit(EP, { n: 'd' }, at(500));
  await commands.submit(EP, { n: 'e' }, at(520), { policy: { lowPriority: true } });
  await commands.submit(EP, { n: 'f' }, at(400));
  await commands.submit(EP, { n: 'g' }, at(300), { policy: { ttl: 10_000 } });

  // Another endpoint's queue and worker.
  await commands.submit('ep-elsewhere', { n: 'x' }, at(100));
  await commands.register('ep-elsewhere', 'worker-elsewhere', at(100));
  await commands.foldEvents();
});

afterAll(async () => {
  await commands?.stop();
});

const stats = (endpointId: string) => harness.query(Subjects.job.queueStats, { endpointId });

describe('queue statistics', () => {
  it("counts the endpoint's queue, its finished jobs of the window and its live workers by state", async () => {
    const before = Date.now();
    const answer: QueueStats = await stats(EP);
    const after = Date.now();
    expect(answer).toEqual({
      endpointId: EP,
      inQueue: 3,
      inProgress: 1,
      inQueueNonLowPriority: 2,
      oldestQueuedAgeMs: expect.any(Number),
      completed: 2,
      failed: 1,
      retried: 1,
      workers: { idle: 1, running: 1, initializing: 1, unhealthy: 1 },
      recycleWorkerIds: [],
      initializingWorkerIds: ['worker-starting'],
      busyWorkerIds: ['worker-busy'],
    });
    // The oldest normal job was queued 500 s before `now`; a low-priority one never counts.
    expect(answer.oldestQueuedAgeMs).toBeGreaterThanOrEqual(before - (now - 500_000));
    expect(answer.oldestQueuedAgeMs).toBeLessThanOrEqual(after - (now - 500_000));
  });

  it("counts another endpoint's apart, and an endpoint with nothing as zeros", async () => {
    expect(await stats('ep-elsewhere')).toMatchObject({
      inQueue: 1,
      inProgress: 0,
      completed: 0,
      workers: { idle: 0, running: 0, initializing: 1, unhealthy: 0 },
      initializingWorkerIds: ['worker-elsewhere'],
    });
    expect(await stats('ep-empty')).toEqual({
      endpointId: 'ep-empty',
      inQueue: 0,
      inProgress: 0,
      inQueueNonLowPriority: 0,
      oldestQueuedAgeMs: 0,
      completed: 0,
      failed: 0,
      retried: 0,
      workers: { idle: 0, running: 0, initializing: 0, unhealthy: 0 },
      recycleWorkerIds: [],
      initializingWorkerIds: [],
      busyWorkerIds: [],
    });
  });

  it('answers many endpoints at once as one by one, in the order asked, in three statements whatever their number', async () => {
    const ids = ['ep-empty', EP, 'ep-elsewhere', ...Array.from({ length: 50 }, (_, i) => `ep-quiet-${i}`)];
    const statements = jest.spyOn(harness.dataSource, 'query');
    const many: QueueStats[] = await harness.query(Subjects.job.queueStatsMany, { endpointIds: ids });
    const issued = statements.mock.calls.length;
    statements.mockRestore();
    expect(issued).toBe(3);
    expect(many.map((s) => s.endpointId)).toEqual(ids);
    for (const [i, id] of ids.slice(0, 3).entries()) {
      expect(many[i]).toEqual({ ...(await stats(id)), oldestQueuedAgeMs: expect.any(Number) });
    }
    expect(many[3]).toEqual(await stats('ep-quiet-0'));
  });

  it('refuses a query without an endpoint (422)', async () => {
    expect(await refusalOf(harness.query(Subjects.job.queueStats, {}))).toMatchObject({
      code: ErrorCode.ValidationFailed,
    });
  });
});
