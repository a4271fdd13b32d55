import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ErrorCode, Subjects, type Actor, type TakeResult } from '@app/contracts';
import { NatsClient } from '@app/messaging';
import { HandlerHarness, type SendOptions } from '../../../test/support/handler-harness.js';
import { deleteStreams } from '../../../test/support/system.js';
import { testEnv } from '../../../test/support/test-env.js';
import { DATA_SOURCE_SPEC } from './data-source.js';
import { CancelJobHandler } from './jobs/cancel-job/cancel-job.handler.js';
import { JobChunksRepository } from './jobs/job-chunks.repository.js';
import { JobLeasesRepository } from './jobs/job-leases.repository.js';
import { JobLifecycle } from './jobs/job-lifecycle.js';
import { JobTakes } from './jobs/job-takes.js';
import { JobsRepository } from './jobs/jobs.repository.js';
import { PurgeQueueHandler } from './jobs/purge-queue/purge-queue.handler.js';
import { ReadStreamHandler } from './jobs/read-stream/read-stream.handler.js';
import { RetryJobHandler } from './jobs/retry-job/retry-job.handler.js';
import { SetJobTtlHandler } from './jobs/set-job-ttl/set-job-ttl.handler.js';
import { SubmitJobHandler } from './jobs/submit-job/submit-job.handler.js';
import { SubmitJobs } from './jobs/submit-jobs.js';
import { SweepJobsHandler } from './jobs/sweep-jobs/sweep-jobs.handler.js';
import { PayloadStore } from './payloads/payload-store.js';
import { QueueBrokerConfig } from './queue-broker.config.js';
import { RotateWebhookSecretHandler } from './webhooks/rotate-webhook-secret/rotate-webhook-secret.handler.js';
import { WebhookSecretsRepository } from './webhooks/webhook-secrets.repository.js';
import { CollectStopsHandler } from './workers/collect-stops/collect-stops.handler.js';
import { JobDoneHandler } from './workers/job-done/job-done.handler.js';
import { JobResults } from './workers/job-results.js';
import { JobStreamHandler } from './workers/job-stream/job-stream.handler.js';
import { PingWorkerHandler } from './workers/ping-worker/ping-worker.handler.js';
import { RegisterWorkerHandler } from './workers/register-worker/register-worker.handler.js';
import { TakeJobsHandler } from './workers/take-jobs/take-jobs.handler.js';
import { WorkersRepository } from './workers/workers.repository.js';

/**
 * queue-broker's job and worker command handlers over its real schema (its migrations), an in-process bus, and
 * the payload store on the run's NATS (its own prefix): a job's life from submit to take, stream and done, and
 * each handler's main refusal.
 */

const SYSTEM: Actor = { userId: 'system', kind: 'system' };
const ENDPOINT = 'ep-handlers';
const WORKER = 'worker-1';
const prefix = `${testEnv().natsPrefix}qb${randomBytes(3).toString('hex')}`;
/** Commands a step apart, as the live side sends them (a job's times come from its commands). */
const at = (second: number): SendOptions => ({
  issuedAt: new Date(Date.UTC(2026, 2, 1, 12, 0, second)).toISOString(),
});

let harness: HandlerHarness;
let nats: NatsClient;

beforeAll(async () => {
  harness = await HandlerHarness.start('queue_broker_handlers', 'queue-broker', DATA_SOURCE_SPEC);
  nats = await NatsClient.connect(testEnv().natsUrl, prefix, 'queue-broker-handlers-int-spec');
  const config = new QueueBrokerConfig();
  const payloads = new PayloadStore(nats, config);
  await payloads.onModuleInit();
  const { dataSource } = harness;
  const jobs = new JobsRepository(dataSource);
  const workers = new WorkersRepository(dataSource);
  const chunks = new JobChunksRepository();
  const lifecycle = new JobLifecycle(jobs, chunks);
  const takes = new JobTakes(new JobLeasesRepository(), workers, payloads, config);
  harness.register(
    new SubmitJobHandler(new SubmitJobs(jobs, lifecycle, takes), payloads, config),
    new CancelJobHandler(jobs, lifecycle),
    new RetryJobHandler(jobs, lifecycle),
    new PurgeQueueHandler(jobs, lifecycle),
    new SetJobTtlHandler(jobs),
    new ReadStreamHandler(jobs, chunks, payloads),
    new SweepJobsHandler(jobs, workers, lifecycle, config),
    new RotateWebhookSecretHandler(new WebhookSecretsRepository(dataSource)),
    new RegisterWorkerHandler(workers),
    new TakeJobsHandler(takes),
    new JobDoneHandler(jobs, workers, new JobResults(jobs, lifecycle, payloads)),
    new JobStreamHandler(jobs, chunks, workers, lifecycle, payloads),
    new PingWorkerHandler(jobs, workers, lifecycle, config),
    new CollectStopsHandler(jobs, workers),
  );
});

afterAll(async () => {
  await harness?.stop();
  await nats?.drain();
  await deleteStreams(prefix);
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
    for (const workerId of ['worker-loading', 'worker-polling'])
      await harness.send(Subjects.worker.register, { endpointId, workerId }, at(85));
    await harness.send(
      Subjects.worker.take,
      { endpointId, workerId: 'worker-polling', batchSize: 1 },
      at(86),
    );
    const counts = await new WorkersRepository(harness.dataSource).counts(
      endpointId,
      new Date(Date.UTC(2026, 2, 1, 12, 0, 0)),
      new Date(Date.UTC(2026, 2, 1, 12, 0, 0)),
    );
    expect(counts).toMatchObject({ idle: 1, initializing: 1, initializingIds: ['worker-loading'] });
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

describe('what the worker and queue commands refuse or ignore', () => {
  const OTHER = 'ep-refusals';
  /** Later than every command above (the sweep above ran at 13:00), so these see only their own endpoint's jobs. */
  const late = (minute: number, second = 0): SendOptions => ({
    issuedAt: new Date(Date.UTC(2026, 2, 1, 14, minute, second)).toISOString(),
  });
  const onOther = (workerId: string) => ({ endpointId: OTHER, workerId });

  it("refuses to read the stream of another endpoint's job (404), writing nothing", async () => {
    const accepted = await harness.send(
      Subjects.job.submit,
      { endpointId: OTHER, sync: false, input: 1 },
      late(0),
    );
    const read = () =>
      harness.send(Subjects.job.readStream, { endpointId: ENDPOINT, jobId: accepted.id }, late(1));
    expect(await harness.refusal(read)).toMatchObject({ code: ErrorCode.NotFound, wrote: [] });
  });

  it('ignores a chunk from a worker the job is not leased to: recorded as ignored, the job and outbox untouched', async () => {
    await harness.send(Subjects.worker.register, onOther('worker-a'), late(2));
    const taken = await harness.send(Subjects.worker.take, { ...onOther('worker-a'), batchSize: 5 }, late(3));
    const [job] = (taken as TakeResult).jobs;
    const stream = () =>
      harness.send(Subjects.worker.stream, { ...onOther('worker-b'), jobId: job.id, output: 'x' }, late(4));
    const { result, wrote } = await harness.wrote(stream);
    expect(result).toMatchObject({ recorded: false, reason: 'the job is leased to worker worker-a' });
    expect(wrote).toEqual(['ignored_results', 'workers']);
  });

  it('purges only what waits: a job a worker runs stays (none removed, nothing written)', async () => {
    const { result, wrote } = await harness.wrote(() =>
      harness.send(Subjects.job.purge, { endpointId: OTHER }, late(5)),
    );
    expect(result).toMatchObject({ removed: 0 });
    expect(wrote).toEqual([]);
  });

  it('a worker the sweep declared lost takes nothing from a long poll it made before (the job stays queued)', async () => {
    await harness.send(Subjects.worker.register, onOther('worker-lost'), late(10));
    await harness.send(Subjects.job.submit, { endpointId: OTHER, sync: false, input: 2 }, late(10, 1));
    await harness.send(Subjects.job.sweep, { detectLostWorkers: true }, { ...late(59), actor: SYSTEM });
    const take = () =>
      harness.send(
        Subjects.worker.take,
        { ...onOther('worker-lost'), batchSize: 5, requestedAt: late(30).issuedAt },
        late(59, 1),
      );
    const { result, wrote } = await harness.wrote(take);
    expect(result).toEqual({ jobs: [] });
    expect(wrote).not.toContain('jobs');
    expect(wrote).not.toContain('outbox');
  });

  it('refuses malformed register, ping, stop-collecting and sweep commands (422), writing nothing', async () => {
    const malformed = [
      () => harness.send(Subjects.worker.register, { endpointId: OTHER }),
      () => harness.send(Subjects.worker.ping, { ...onOther('worker-a'), jobIds: [] }),
      () => harness.send(Subjects.worker.collectStops, { ...onOther('worker-a'), requestedAt: 'yesterday' }),
      () => harness.send(Subjects.job.sweep, {}, { actor: SYSTEM }),
    ];
    for (const send of malformed) {
      expect(await harness.refusal(send)).toMatchObject({ code: ErrorCode.ValidationFailed, wrote: [] });
    }
  });
});

describe('the sweep and rows other commands hold', () => {
  const ENDPOINT_LOCKED = 'ep-sweep-lock';
  const at15 = (minute: number): SendOptions => ({
    issuedAt: new Date(Date.UTC(2026, 2, 1, 15, minute)).toISOString(),
  });

  it('waits for a job another transaction holds and then ends it, rather than skipping it (a rebuild, where nothing holds it, ends it in this sweep too)', async () => {
    const accepted = await harness.send(
      Subjects.job.submit,
      { endpointId: ENDPOINT_LOCKED, sync: false, input: 3, policy: { ttl: 10_000 } },
      at15(0),
    );
    const holder = harness.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query('SELECT id FROM queue_broker.jobs WHERE id = $1 FOR UPDATE', [accepted.id]);
    let settled = false;
    const sweep = harness
      .send(Subjects.job.sweep, { detectLostWorkers: false }, { ...at15(1), actor: SYSTEM })
      .finally(() => (settled = true));
    try {
      // While the row is held the sweep cannot have decided about it: it waits (SKIP LOCKED would have gone on).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(settled).toBe(false);
    } finally {
      await holder.commitTransaction();
      await holder.release();
    }
    // Ended TIMED_OUT (and, its ttl being over too, deleted by the same sweep).
    expect(await sweep).toMatchObject({ outlived: 1 });
    const changes = (await harness.events(Subjects.job.changed)).map((event) => event.payload);
    expect(changes).toContainEqual(expect.objectContaining({ jobId: accepted.id, status: 'TIMED_OUT' }));
  });
});

/** After every block above (their commands are dated up to 15:01). */
describe('a take riding on a submit (a worker poll waiting at the edge)', () => {
  const RIDE = 'ep-ride';
  const rider = { endpointId: RIDE, workerId: 'worker-ride' };
  const at17 = (minute: number, second = 0): SendOptions => ({
    issuedAt: new Date(Date.UTC(2026, 2, 1, 17, minute, second)).toISOString(),
  });
  const submitTaking = (input: unknown, when: SendOptions, take: object = { ...rider, batchSize: 1 }) =>
    harness.send(Subjects.job.submit, { endpointId: RIDE, sync: true, input, take }, when);

  it('leases the job it submits in its own transaction, and queues no signal for it', async () => {
    await harness.send(Subjects.worker.register, rider, at17(0));
    const queuedBefore = (await harness.events(Subjects.job.queued)).length;
    const { result, wrote } = await harness.wrote(() => submitTaking({ n: 1 }, at17(1)));
    expect(result).toMatchObject({
      status: 'IN_QUEUE',
      taken: { jobs: [{ id: result.id, input: { n: 1 } }] },
    });
    expect(wrote).toEqual(expect.arrayContaining(['jobs', 'job_attempts', 'workers']));
    expect((await harness.events(Subjects.job.queued)).length).toBe(queuedBefore);
    // It runs: the worker finishes it as any leased job.
    const done = await harness.send(
      Subjects.worker.done,
      { ...rider, jobId: result.id, output: 2, hasOutput: true, progress: false, stopPod: false },
      at17(2),
    );
    expect(done).toEqual({ recorded: 'completed' });
  });

  it('leases the oldest queued jobs first; the new job, left queued, is signalled as any submit', async () => {
    const older = await harness.send(
      Subjects.job.submit,
      { endpointId: RIDE, sync: false, input: 'old' },
      at17(3),
    );
    const result = await submitTaking('new', at17(4));
    expect(result.taken).toEqual({ jobs: [expect.objectContaining({ id: older.id })] });
    const queued = (await harness.events(Subjects.job.queued)).at(-1)?.payload;
    expect(queued).toEqual({ endpointId: RIDE, jobId: result.id });
    const next = await harness.send(Subjects.worker.take, { ...rider, batchSize: 5 }, at17(5));
    expect((next as TakeResult).jobs.map((job) => job.id)).toEqual([result.id]);
  });

  it('replayed with its recorded decision, leases exactly what it leased live', async () => {
    const older = await harness.send(
      Subjects.job.submit,
      { endpointId: RIDE, sync: false, input: 'a' },
      at17(10),
    );
    // Live, another worker's take had locked the older job: this submit's take leased only its own.
    const result = await harness.send(
      Subjects.job.submit,
      { endpointId: RIDE, sync: false, input: 'b', take: { ...rider, batchSize: 2 } },
      { ...at17(11), decided: { jobIds: [] } },
    );
    expect(result.taken).toEqual({ jobs: [] });
    const rest = await harness.send(Subjects.worker.take, { ...rider, batchSize: 5 }, at17(12));
    expect((rest as TakeResult).jobs.map((job) => job.id)).toEqual([older.id, result.id]);
  });

  it('leases nothing to a worker that is not alive; refuses a take for another endpoint (422), writing nothing', async () => {
    // A poll the worker made longer than WORKER_LOST_AFTER_MS ago, and nothing heard from it since.
    const lost = await submitTaking('x', at17(50, 1), {
      endpointId: RIDE,
      workerId: 'worker-silent',
      batchSize: 1,
      requestedAt: at17(20).issuedAt,
    });
    expect(lost.taken).toEqual({ jobs: [] });
    expect((await harness.events(Subjects.job.queued)).at(-1)?.payload).toEqual({
      endpointId: RIDE,
      jobId: lost.id,
    });
    expect(
      await harness.refusal(() =>
        submitTaking('y', at17(51), { ...rider, endpointId: ENDPOINT, batchSize: 1 }),
      ),
    ).toMatchObject({ code: ErrorCode.ValidationFailed, wrote: [] });
    expect(
      await harness.refusal(() => submitTaking('y', at17(51), { ...rider, batchSize: 0 })),
    ).toMatchObject({ code: ErrorCode.ValidationFailed, wrote: [] });
    await harness.send(Subjects.job.purge, { endpointId: RIDE }, at17(52));
  });
});
