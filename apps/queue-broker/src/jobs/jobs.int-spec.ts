import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type Actor, type TakeResult } from '@app/contracts';
import { WorkersRepository } from '../workers/workers.repository.js';
import type { HandlerHarness, SendOptions } from '../../../../test/support/handler-harness.js';
import { startQueueBrokerCommands } from '../../../../test/support/queue-broker-commands.js';
import type { WorkerCommands } from '../../../../test/support/queue-broker-workers.js';

/**
 * queue-broker's job commands over its real schema, an in-process bus and the payload store on the run's NATS:
 * a job's life from submit to take, stream and done, and each command's main refusal.
 */

const SYSTEM: Actor = { userId: 'system', kind: 'system' };
const ENDPOINT = 'ep-handlers';
const WORKER = 'worker-1';
/** Commands a step apart, as the live side sends them (a job's times come from its commands). */
const at = (second: number): SendOptions => ({
  issuedAt: new Date(Date.UTC(2026, 2, 1, 12, 0, second)).toISOString(),
});

let commands: WorkerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await startQueueBrokerCommands('jobs');
  harness = commands.harness;
});

afterAll(async () => {
  await commands?.stop();
});

const submit = (input: unknown, second = 0) =>
  harness.send(Subjects.job.submit, { endpointId: ENDPOINT, sync: false, input }, at(second));

const worker = { endpointId: ENDPOINT, workerId: WORKER };

/** Takes whatever is queued for the endpoint (nothing is big enough here to be packed as a blob). */
async function take(second: number): Promise<TakeResult> {
  return (await harness.send(Subjects.worker.take, { ...worker, batchSize: 5 }, at(second))) as TakeResult;
}

describe('a job from submit to done', () => {
  it('queues a job, emits job.evt.queued, and refuses a submit without input (422)', async () => {
    const accepted = await submit({ prompt: 'hello' });
    expect(accepted).toMatchObject({ status: 'IN_QUEUE' });
    const queued = (await harness.events(Subjects.job.queued)).at(-1)?.payload;
    expect(queued).toMatchObject({ endpointId: ENDPOINT, jobId: accepted.id });
    expect(
      await harness.refusal(() => harness.send(Subjects.job.submit, { endpointId: ENDPOINT, sync: false })),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
    await harness.send(Subjects.job.purge, { endpointId: ENDPOINT }, at(1));
  });

  it('leases a queued job to a registered worker, streams its chunks and records its output', async () => {
    await harness.send(Subjects.worker.register, worker, at(10));
    const accepted = await submit({ n: 1 }, 11);
    const taken = await take(12);
    expect(taken.jobs.map((j) => j.id)).toEqual([accepted.id]);
    expect(taken.jobs[0].input).toEqual({ n: 1 });
    const streamed = await harness.send(
      Subjects.worker.stream,
      { ...worker, jobId: accepted.id, output: { token: 'a' } },
      at(13),
    );
    expect(streamed).toMatchObject({ recorded: true, chunks: 1 });
    await expect(
      harness.send(Subjects.job.readStream, { endpointId: ENDPOINT, jobId: accepted.id }, at(14)),
    ).resolves.toBeDefined();
    const done = await harness.send(
      Subjects.worker.done,
      {
        ...worker,
        jobId: accepted.id,
        output: { answer: 42 },
        hasOutput: true,
        progress: false,
        stopPod: false,
      },
      at(15),
    );
    expect(done).toEqual({ recorded: 'completed' });
    const changed = (await harness.events(Subjects.job.changed)).at(-1)?.payload;
    expect(changed).toMatchObject({ jobId: accepted.id, status: 'COMPLETED' });
  });

  it('fails a job whose output jsonb cannot store (an unpaired surrogate), with the reason, rather than erroring', async () => {
    const accepted = await submit({ n: 3 }, 16);
    expect((await take(17)).jobs.map((j) => j.id)).toEqual([accepted.id]);
    const done = await harness.send(
      Subjects.worker.done,
      {
        ...worker,
        jobId: accepted.id,
        output: { text: '\ud800' },
        hasOutput: true,
        progress: false,
        stopPod: false,
      },
      at(18),
    );
    expect(done).toEqual({
      recorded: 'failed',
      reason: 'the output contains an unpaired UTF-16 surrogate (\\ud800-\\udfff), which cannot be stored',
    });
  });

  it('ignores a result for a job no longer leased to the worker (recorded, answered 200)', async () => {
    const accepted = await submit({ n: 2 }, 20);
    await harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: accepted.id }, at(21));
    const { result, wrote } = await harness.wrote(() =>
      harness.send(
        Subjects.worker.done,
        { ...worker, jobId: accepted.id, output: 1, hasOutput: true, progress: false, stopPod: false },
        at(22),
      ),
    );
    expect(result).toMatchObject({ recorded: 'ignored' });
    // Only the ignored result and the worker's call are recorded: the job and the outbox are untouched.
    expect(wrote).toEqual(['ignored_results', 'workers']);
  });

  it('a worker that pings keeps its jobs; one that asks for its stops hears of a cancelled running job', async () => {
    const accepted = await submit({ n: 3 }, 30);
    expect((await take(31)).jobs.map((j) => j.id)).toEqual([accepted.id]);
    await expect(
      harness.send(Subjects.worker.ping, { ...worker, jobIds: [accepted.id], unhealthy: false }, at(32)),
    ).resolves.toEqual({ requeued: 0 });
    await harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: accepted.id }, at(33));
    const stops = await harness.send(Subjects.worker.collectStops, worker, at(34));
    expect(stops.jobsToStop).toContain(accepted.id);
  });

  it('a heartbeat counts from when it reached the edge: held past the grace, it does not take back a job it could not list', async () => {
    const endpointId = 'ep-heartbeat';
    const beating = { endpointId, workerId: 'worker-heartbeat' };
    await harness.send(Subjects.worker.register, beating, at(200));
    const accepted = await harness.send(
      Subjects.job.submit,
      { endpointId, sync: false, input: { n: 16 } },
      at(200),
    );
    await harness.send(Subjects.worker.take, { ...beating, batchSize: 1 }, at(201));
    // Sent before the lease, issued after the 60 s grace (the edge held it): the worker could not list the job.
    const held = { ...beating, jobIds: [], unhealthy: false, requestedAt: at(200).issuedAt };
    await expect(harness.send(Subjects.worker.ping, held, at(330))).resolves.toEqual({ requeued: 0 });
    // Sent past the grace without the job: the take's answer never reached the worker.
    const unlisted = { ...beating, jobIds: [], unhealthy: false, requestedAt: at(331).issuedAt };
    await expect(harness.send(Subjects.worker.ping, unlisted, at(331))).resolves.toEqual({ requeued: 1 });
    const requeued = (await harness.events(Subjects.job.queued)).at(-1)?.payload;
    expect(requeued).toEqual({ endpointId, jobId: accepted.id });
  });

  it('a collect of stops replayed with its recorded decision hands out only the jobs it named live', async () => {
    const [one, two] = [await submit({ n: 15 }, 35), await submit({ n: 15 }, 35)];
    await take(36);
    await harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: one.id }, at(37));
    await harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: two.id }, at(37));
    // Live, the second cancel committed after the collect's statement ran: it named the first job only.
    const replayed = await harness.send(Subjects.worker.collectStops, worker, {
      ...at(38),
      decided: { jobIds: [one.id] },
    });
    expect(replayed.jobsToStop).toEqual([one.id]);
    const next = await harness.send(Subjects.worker.collectStops, worker, at(39));
    expect(next.jobsToStop).toEqual([two.id]);
  });
});

describe('job commands', () => {
  it('cancels a queued job, and refuses to cancel it again (INVALID_STATE) or an unknown one (404)', async () => {
    const accepted = await submit({ n: 4 }, 40);
    await expect(
      harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: accepted.id }, at(41)),
    ).resolves.toEqual({ id: accepted.id, status: 'CANCELLED' });
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: accepted.id }, at(42)),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.InvalidState });
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: 'no-such-job' }, at(42)),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.NotFound });
  });

  it('retries a failed job, and refuses to retry a cancelled one (INVALID_STATE)', async () => {
    const failing = await submit({ n: 5 }, 50);
    await take(51);
    await harness.send(
      Subjects.worker.done,
      { ...worker, jobId: failing.id, hasOutput: false, error: 'boom', progress: false, stopPod: false },
      at(52),
    );
    await expect(
      harness.send(Subjects.job.retry, { endpointId: ENDPOINT, jobId: failing.id }, at(53)),
    ).resolves.toEqual({ id: failing.id, status: 'IN_QUEUE' });
    const cancelled = await submit({ n: 6 }, 54);
    await harness.send(Subjects.job.cancel, { endpointId: ENDPOINT, jobId: cancelled.id }, at(55));
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.job.retry, { endpointId: ENDPOINT, jobId: cancelled.id }, at(56)),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.InvalidState });
    await harness.send(Subjects.job.purge, { endpointId: ENDPOINT }, at(57));
  });

  it('purges the queued jobs of an endpoint and leaves none to take', async () => {
    await submit({ n: 7 }, 60);
    await submit({ n: 8 }, 60);
    const purged = await harness.send(Subjects.job.purge, { endpointId: ENDPOINT }, at(61));
    expect(purged).toMatchObject({ removed: 2 });
    expect((await take(62)).jobs).toEqual([]);
  });

  it('a purge names the jobs it removed, in id order; replayed with that decision it removes exactly those', async () => {
    const ids = [(await submit({ n: 11 }, 63)).id, (await submit({ n: 12 }, 63)).id].sort();
    const purged = await harness.send(Subjects.job.purge, { endpointId: ENDPOINT }, at(64));
    expect(purged).toEqual({ removed: 2, status: 'completed', jobIds: ids });
    // A rebuild: the live purge ran before a later submit committed, so it names only the first job.
    const first = await submit({ n: 13 }, 65);
    const later = await submit({ n: 14 }, 65);
    const replayed = await harness.send(
      Subjects.job.purge,
      { endpointId: ENDPOINT },
      { ...at(66), decided: { jobIds: [first.id] } },
    );
    expect(replayed).toEqual({ removed: 1, status: 'completed', jobIds: [first.id] });
    const rest = await harness.send(Subjects.job.purge, { endpointId: ENDPOINT }, at(67));
    expect(rest.jobIds).toEqual([later.id]);
  });

  it("sets a job's ttl, and refuses an unknown job (404)", async () => {
    const accepted = await submit({ n: 9 }, 70);
    await expect(
      harness.send(Subjects.job.setTtl, { endpointId: ENDPOINT, jobId: accepted.id, ttlMs: 60_000 }, at(71)),
    ).resolves.toMatchObject({ id: accepted.id });
    expect(
      await harness.refusal(() =>
        harness.send(
          Subjects.job.setTtl,
          { endpointId: ENDPOINT, jobId: 'no-such-job', ttlMs: 60_000 },
          at(71),
        ),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.NotFound });
    await harness.send(Subjects.job.purge, { endpointId: ENDPOINT }, at(72));
  });

  it('sweeps: a worker that stopped calling is lost and its running job is queued again', async () => {
    await harness.send(Subjects.worker.register, { endpointId: ENDPOINT, workerId: 'worker-quiet' }, at(80));
    const accepted = await submit({ n: 10 }, 80);
    await harness.send(
      Subjects.worker.take,
      { endpointId: ENDPOINT, workerId: 'worker-quiet', batchSize: 1 },
      at(81),
    );
    const later = { ...at(0), actor: SYSTEM, issuedAt: '2026-03-01T13:00:00.000Z' };
    const swept = await harness.send(Subjects.job.sweep, { detectLostWorkers: true }, later);
    expect(swept).toMatchObject({ requeued: 1 });
    expect(swept.lostWorkers).toBeGreaterThanOrEqual(1);
    const requeued = (await harness.events(Subjects.job.queued)).at(-1)?.payload;
    expect(requeued).toEqual({ endpointId: ENDPOINT, jobId: accepted.id });
  });

  it('counts a registered worker as initializing, by id, until it first asks for a job', async () => {
    const endpointId = 'ep-initializing';
    for (const workerId of ['worker-loading', 'worker-polling']) {
      await harness.send(Subjects.worker.register, { endpointId, workerId }, at(85));
    }
    await harness.send(
      Subjects.worker.take,
      { endpointId, workerId: 'worker-polling', batchSize: 1 },
      at(86),
    );
    const counts = await new WorkersRepository(harness.dataSource).counts(
      [endpointId, 'ep-without-workers'],
      new Date(Date.UTC(2026, 2, 1, 12, 0, 0)),
      new Date(Date.UTC(2026, 2, 1, 12, 0, 0)),
    );
    expect(counts.get(endpointId)).toMatchObject({
      idle: 1,
      initializing: 1,
      initializingIds: ['worker-loading'],
    });
    expect([...counts.keys()]).toEqual([endpointId]); // one without a live worker is absent
  });

  it("rotates an endpoint's webhook secret, and refuses an empty one (422)", async () => {
    await expect(
      harness.send(Subjects.job.rotateWebhookSecret, { endpointId: ENDPOINT, secretSealed: 'v1.k.c2VjcmV0' }),
    ).resolves.toMatchObject({ endpointId: ENDPOINT });
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.job.rotateWebhookSecret, { endpointId: ENDPOINT, secretSealed: '' }),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
  });
});
