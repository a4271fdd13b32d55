import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { refusalOf, type HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { JobCommands, ago, slowClockConfig } from '../../../../../test/support/queue-broker-jobs.js';
import { ListWorkersHandler } from './list-workers.handler.js';

/**
 * `worker.qry.list` (GET /v2/serverless/{id}/workers) over queue-broker's real schema: workers made by its register,
 * take and ping commands, dated back from the test's clock (the handler reads the clock). Workers are lost after
 * an hour of silence here (slowClockConfig), so stale after half an hour.
 */

const EP = 'ep-workers';

let commands: JobCommands;
let harness: HandlerHarness;
let now: number;
/** worker-busy's jobs, in the order it holds them (leased together: by id). */
let busyJobs: string[];

beforeAll(async () => {
  commands = await JobCommands.start('list_workers');
  harness = commands.harness;
  harness.register(new ListWorkersHandler(commands.workerCommands.workers, slowClockConfig()));
  now = Date.now();
  const at = (seconds: number) => ago(now, seconds);
  await commands.take(EP, 'worker-lost', at(7200));
  await commands.take(EP, 'worker-stale', at(2400));
  await commands.register(EP, 'worker-new', at(600));
  await commands.register(EP, 'worker-busy', at(590));
  busyJobs = [
    (await commands.submit(EP, { n: 1 }, at(500))).id,
    (await commands.submit(EP, { n: 2 }, at(499))).id,
  ].sort();
  await commands.take(EP, 'worker-busy', at(480), 2);
  await commands.take(EP, 'worker-sick', at(400));
  await commands.ping(EP, 'worker-sick', [], at(390), {
    unhealthy: true,
    reason: 'CUDA error',
    version: 'v2',
  });
  await commands.take(EP, 'worker-idle', at(300));
  await commands.register('ep-elsewhere', 'worker-elsewhere', at(300));
});

afterAll(async () => {
  await commands?.stop();
});

const iso = (seconds: number) => new Date(now - seconds * 1000).toISOString();
const list = (endpointId: string) => harness.query(Subjects.worker.list, { endpointId });

describe('listing workers', () => {
  it("answers the endpoint's live workers, oldest first, each with its status and the jobs it holds", async () => {
    const worker = {
      currentJobs: [],
      currentJobCount: 0,
      isStale: false,
      version: null,
      unhealthyReason: null,
    };
    expect(await list(EP)).toEqual({
      workers: [
        // Silent for 40 minutes: still alive, but stale.
        {
          ...worker,
          id: 'worker-stale',
          status: 'IDLE',
          isStale: true,
          registeredAt: iso(2400),
          lastSeenAt: iso(2400),
        },
        { ...worker, id: 'worker-new', status: 'INITIALIZING', registeredAt: iso(600), lastSeenAt: null },
        {
          ...worker,
          id: 'worker-busy',
          status: 'RUNNING',
          currentJobs: busyJobs,
          currentJobCount: 2,
          registeredAt: iso(590),
          lastSeenAt: iso(480),
        },
        {
          ...worker,
          id: 'worker-sick',
          status: 'UNHEALTHY',
          version: 'v2',
          unhealthyReason: 'CUDA error',
          registeredAt: iso(400),
          lastSeenAt: iso(390),
        },
        { ...worker, id: 'worker-idle', status: 'IDLE', registeredAt: iso(300), lastSeenAt: iso(300) },
      ],
      summary: { total: 5, running: 1, idle: 2, initializing: 1, throttled: 0, unhealthy: 1 },
    });
  });

  it("lists nothing of another endpoint's, and an endpoint without workers as empty", async () => {
    expect((await list('ep-elsewhere')).workers.map((w) => w.id)).toEqual(['worker-elsewhere']);
    expect(await list('ep-empty')).toEqual({
      workers: [],
      summary: { total: 0, running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0 },
    });
  });

  it('refuses a query without an endpoint (422)', async () => {
    expect(await refusalOf(harness.query(Subjects.worker.list, {}))).toMatchObject({
      code: ErrorCode.ValidationFailed,
    });
  });
});
