import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, eventually, postLarge, startJobsSystem, type JobsSystem } from './jobs.e2e-helpers.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.e2e-helpers.js';

type Json = Record<string, unknown>;

/**
 * The job API of queue-based endpoints over HTTP, against real worker processes of @app/worker-sdk:
 * service-interface.md (jobs, states, limits) and compatibility.md §1, §2.
 */
describe('queue-based endpoints: the job API', () => {
  let jobs: JobsSystem;
  const workers: WorkerProcess[] = [];
  const ep = (name: string) => jobs.endpoints[name];
  const url = (name: string, path: string) => `${jobs.gateway}/v2/${ep(name)}${path}`;
  const key = () => jobs.user.key;
  const status = async (name: string, id: string) =>
    (await call('GET', url(name, `/status/${id}`), key())).body as Json;
  const until = (name: string, id: string, wanted: string, timeoutMs = 20_000) =>
    eventually(async () => {
      const s = await status(name, id);
      return s.status === wanted ? s : null;
    }, timeoutMs);
  const run = async (name: string, body: unknown): Promise<string> => {
    const reply = await call('POST', url(name, '/run'), key(), body);
    expect(reply.status).toBe(200);
    return (reply.body as Json).id as string;
  };
  const ignoredResults = async (jobId: string) =>
    Number(
      (
        await jobs.sql.query<{ n: string }>(
          'SELECT count(*) AS n FROM queue_broker.ignored_results WHERE job_id = $1',
          [jobId],
        )
      ).rows[0].n,
    );

  beforeAll(async () => {
    jobs = await startJobsSystem('jobs', {
      endpoints: ['sleep', 'stream', 'fail', 'slow', 'manual', 'batch', 'batched'],
      gateway: { JOB_TAKE_LONG_POLL_MS: '3000', JOB_STOP_LONG_POLL_MS: '3000' },
    });
    workers.push(
      startWorkerProcess(jobs, 'echo', 'echo-1'),
      startWorkerProcess(jobs, 'sleep', 'sleep-1', { endpointId: ep('sleep') }),
      startWorkerProcess(jobs, 'stream', 'stream-1', { endpointId: ep('stream') }),
      startWorkerProcess(jobs, 'fail', 'fail-1', { endpointId: ep('fail') }),
      startWorkerProcess(jobs, 'sleep', 'slow-1', { endpointId: ep('slow') }),
    );
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await jobs?.close();
  });

  it('run → a worker takes it → status COMPLETED with output, delayTime, executionTime', async () => {
    const run = await call('POST', url('qb', '/run'), key(), { input: { hello: 'world' } });
    expect(run.status).toBe(200);
    expect(run.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'IN_QUEUE' });
    const id = (run.body as Json).id as string;
    const done = await until('qb', id, 'COMPLETED');
    expect(done).toMatchObject({
      id,
      status: 'COMPLETED',
      output: { hello: 'world' },
      delayTime: expect.any(Number),
      executionTime: expect.any(Number),
      workerId: 'echo-1',
    });
    // The key as a bearer token works as well as the raw key.
    expect((await call('GET', url('qb', `/status/${id}`), key(), undefined, { bearer: true })).status).toBe(
      200,
    );
  });

  it("a job submitted while the worker's poll waits is leased by the submit itself: no take command of its own", async () => {
    // The echo worker finished what came before and waits in its long poll (nothing queued: no take is sent).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const reply = await call('POST', url('qb', '/runsync?wait=20000'), key(), { input: { ride: true } });
    expect(reply.body).toMatchObject({ status: 'COMPLETED', output: { ride: true } });
    const id = (reply.body as Json).id as string;
    const applied = await jobs.sql.query<{ subject: string; outcome: { value: Json } }>(
      `SELECT subject, outcome FROM queue_broker.processed_commands
       WHERE outcome->'value'->>'id' = $1 OR outcome->'value'->'jobs' @> $2::jsonb`,
      [id, JSON.stringify([{ id }])],
    );
    // Recorded once, by the submit, with what its take leased: the job itself, to the echo worker.
    expect(applied.rows.map((row) => row.subject)).toEqual(['job.cmd.submit']);
    expect(applied.rows[0].outcome.value).toMatchObject({
      id,
      status: 'IN_QUEUE',
      taken: { jobs: [{ id, input: { ride: true } }] },
    });
    const attempts = await jobs.sql.query<{ worker_id: string }>(
      'SELECT worker_id FROM queue_broker.job_attempts WHERE job_id = $1',
      [id],
    );
    expect(attempts.rows).toEqual([{ worker_id: 'echo-1' }]);
  });

  it('batches concurrent submits into fewer recorded commands, each job in exactly one, each run by the worker', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, n) => call('POST', url('qb', '/run'), key(), { input: { batched: n } })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = replies.map((r) => (r.body as Json).id as string);
    expect(new Set(ids).size).toBe(20);
    const recorded = await jobs.sql.query<{ subject: string; ids: string[] }>(
      `SELECT subject, CASE WHEN subject = 'job.cmd.submit-many'
                            THEN ARRAY(SELECT j->>'id' FROM jsonb_array_elements(outcome->'value'->'jobs') j)
                            ELSE ARRAY[outcome->'value'->>'id'] END AS ids
         FROM queue_broker.processed_commands
        WHERE subject IN ('job.cmd.submit', 'job.cmd.submit-many')
          AND (outcome->'value'->>'id' = ANY($1) OR outcome->'value'->'jobs' @> ANY(
                SELECT jsonb_build_array(jsonb_build_object('id', id)) FROM unnest($1::text[]) AS id))`,
      [ids],
    );
    // The first went alone while the others waited for it; they went together.
    expect(recorded.rows.length).toBeLessThan(20);
    expect(recorded.rows.map((r) => r.subject)).toContain('job.cmd.submit-many');
    expect(recorded.rows.flatMap((r) => r.ids).sort()).toEqual([...ids].sort());
    for (const [n, id] of ids.entries()) {
      expect(await until('qb', id, 'COMPLETED')).toMatchObject({ output: { batched: n } });
    }
    // Each submit-many's jobs were announced in one job.evt.queued-many, in the command's order, and in no
    // job.evt.queued of their own (docs/adr/0013, "Batched job events"); the worker was woken by it.
    const announced = await jobs.sql.query<{ subject: string; ids: string[] }>(
      `SELECT subject, CASE WHEN subject = 'job.evt.queued-many'
                            THEN ARRAY(SELECT j->>'jobId' FROM jsonb_array_elements(payload::jsonb->'jobs') j)
                            ELSE ARRAY[payload::jsonb->>'jobId'] END AS ids
         FROM queue_broker.outbox WHERE subject IN ('job.evt.queued', 'job.evt.queued-many') ORDER BY seq`,
    );
    const manies = recorded.rows.filter((r) => r.subject === 'job.cmd.submit-many' && r.ids.length > 1);
    expect(manies.length).toBeGreaterThan(0);
    for (const many of manies) {
      expect(announced.rows.filter((e) => e.ids.some((id) => many.ids.includes(id)))).toEqual([
        { subject: 'job.evt.queued-many', ids: many.ids },
      ]);
    }
  });

  it('runsync within its wait answers the finished job; past its wait {id, status}, then status-sync resumes', async () => {
    const fast = await call('POST', url('qb', '/runsync?wait=20000'), key(), { input: [1, 2, 3] });
    expect(fast.status).toBe(200);
    expect(fast.body).toMatchObject({
      id: expect.stringMatching(/^sync-/),
      status: 'COMPLETED',
      output: [1, 2, 3],
      delayTime: expect.any(Number),
      executionTime: expect.any(Number),
    });

    const slow = await call('POST', url('slow', '/runsync?wait=1000'), key(), { input: { ms: 3000 } });
    expect(slow.status).toBe(200);
    const body = slow.body as Json;
    expect(body).toEqual({
      id: expect.stringMatching(/^sync-/),
      status: expect.stringMatching(/^IN_(QUEUE|PROGRESS)$/),
    });
    const resumed = await call('GET', url('slow', `/status-sync/${String(body.id)}?wait=20000`), key());
    expect(resumed.body).toMatchObject({ id: body.id, status: 'COMPLETED', output: { slept: 3000 } });
  });

  it('reads are reads: /status, /status-sync and /health record no command; only ?ttl= does', async () => {
    const id = await run('qb', { input: { read: 'only' } });
    const done = await until('qb', id, 'COMPLETED');
    const commands = async () =>
      Number(
        (
          await jobs.sql.query<{ n: string }>(
            "SELECT count(*) AS n FROM queue_broker.processed_commands WHERE subject LIKE 'job.cmd.%'",
          )
        ).rows[0].n,
      );
    const expiry = async () =>
      (
        await jobs.sql.query<{ e: string }>(
          'SELECT expires_at::text AS e FROM queue_broker.jobs WHERE id = $1',
          [id],
        )
      ).rows[0].e;
    const before = { commands: await commands(), expiry: await expiry() };
    for (let i = 0; i < 5; i++) {
      expect((await call('GET', url('qb', `/status/${id}`), key())).body).toEqual(done);
      expect((await call('GET', url('qb', `/status-sync/${id}?wait=1000`), key())).status).toBe(200);
      expect((await call('GET', url('qb', '/health'), key())).status).toBe(200);
    }
    expect({ commands: await commands(), expiry: await expiry() }).toEqual(before);

    // An explicit ttl is a change: one command, and the job's expiry moves.
    expect((await call('GET', url('qb', `/status/${id}?ttl=600000`), key())).status).toBe(200);
    expect(await commands()).toBe(before.commands + 1);
    expect(await expiry()).not.toBe(before.expiry);
  });

  it('refuses a wait out of range with 422 naming it', async () => {
    const reply = await call('POST', url('qb', '/runsync?wait=500'), key(), { input: {} });
    expect(reply.status).toBe(422);
    expect(reply.contentType).toContain('application/problem+json');
    expect(JSON.stringify(reply.body)).toContain('wait must be an integer from 1000 to 300000');
  });

  it('streams the chunks in order, each delivered once, until the job is terminal', async () => {
    const id = await run('stream', { input: { tokens: 6, delayMs: 150 } });
    const seen: Json[] = [];
    let final: Json | undefined;
    for (let i = 0; i < 100 && !final; i++) {
      const reply = await call('GET', url('stream', `/stream/${id}`), key());
      expect(reply.status).toBe(200);
      const body = reply.body as { status: string; stream: { output: Json }[] };
      expect(Array.isArray(body.stream)).toBe(true);
      seen.push(...body.stream.map((c) => c.output));
      if (['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'].includes(body.status)) final = body;
    }
    expect(final?.status).toBe('COMPLETED');
    expect(seen.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const again = await call('GET', url('stream', `/stream/${id}`), key());
    expect(again.body).toEqual({ id, status: 'COMPLETED', stream: [] });
  });

  it('cancels a queued job before it starts and a running one through job-stop (no result posted)', async () => {
    const running = await run('sleep', { input: { ms: 60_000 } });
    await until('sleep', running, 'IN_PROGRESS');
    const queued = await run('sleep', { input: { ms: 1000 } });
    expect((await status('sleep', queued)).status).toBe('IN_QUEUE');

    const cancelQueued = await call('POST', url('sleep', `/cancel/${queued}`), key(), {});
    expect(cancelQueued.status).toBe(200);
    expect(cancelQueued.body).toEqual({ id: queued, status: 'CANCELLED' });

    const cancelRunning = await call('POST', url('sleep', `/cancel/${running}`), key());
    expect(cancelRunning.body).toEqual({ id: running, status: 'CANCELLED' });
    await workers[1].waitFor(`stopped ${running}`);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await status('sleep', running)).toMatchObject({ id: running, status: 'CANCELLED' });
    expect(await ignoredResults(running)).toBe(0);
    expect(workers[1].output()).not.toContain(`started ${queued}`);

    const again = await call('POST', url('sleep', `/cancel/${running}`), key());
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toContain('CANCELLED');
  });

  it('retries a FAILED job: same id and input, output and error cleared; refuses COMPLETED with 409', async () => {
    const id = await run('fail', { input: { message: 'boom' } });
    const failed = await until('fail', id, 'FAILED');
    expect(String(failed.error)).toContain('boom');
    const inputBefore = (
      await jobs.sql.query<{ input: unknown }>('SELECT input FROM queue_broker.jobs WHERE id = $1', [id])
    ).rows[0];

    const retry = await call('POST', url('fail', `/retry/${id}`), key());
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ id, status: 'IN_QUEUE' });
    const row = (
      await jobs.sql.query(
        'SELECT input, output, error, has_output, retries FROM queue_broker.jobs WHERE id = $1',
        [id],
      )
    ).rows[0] as Json;
    expect(row).toMatchObject({ input: inputBefore.input, output: null, has_output: false, retries: 1 });
    const failedAgain = await until('fail', id, 'FAILED');
    expect(failedAgain).toMatchObject({ id, retries: 1 });

    const ok = await run('qb', { input: 1 });
    await until('qb', ok, 'COMPLETED');
    const refused = await call('POST', url('qb', `/retry/${ok}`), key());
    expect(refused.status).toBe(409);
    expect((refused.body as Json).detail).toContain('COMPLETED');
  });

  it('times a job out after policy.executionTimeout (job-stop to the worker), and retries it as TIMED_OUT', async () => {
    const id = await run('slow', { input: { ms: 60_000 }, policy: { executionTimeout: 5000 } });
    const timedOut = await until('slow', id, 'TIMED_OUT', 30_000);
    expect(String(timedOut.error)).toContain('execution timeout');
    await workers[4].waitFor(`stopped ${id}`);
    const retry = await call('POST', url('slow', `/retry/${id}`), key());
    expect(retry.body).toEqual({ id, status: 'IN_QUEUE' });
    expect(await status('slow', id)).not.toHaveProperty('output');
    await until('slow', id, 'IN_PROGRESS');
    expect((await call('POST', url('slow', `/cancel/${id}`), key())).status).toBe(200);
  });

  it('purges only queued jobs; the running one goes on', async () => {
    const running = await run('sleep', { input: { ms: 4000 } });
    await until('sleep', running, 'IN_PROGRESS');
    const queued = [await run('sleep', { input: { ms: 10 } }), await run('sleep', { input: { ms: 10 } })];
    const purge = await call('POST', url('sleep', '/purge-queue'), key());
    expect(purge.body).toEqual({ removed: 2, status: 'completed' });
    for (const id of queued) expect((await status('sleep', id)).status).toBe('CANCELLED');
    expect((await status('sleep', running)).status).toBe('IN_PROGRESS');
    await until('sleep', running, 'COMPLETED');
  });

  it('reports health: job counts over the window and workers by state', async () => {
    // The finished counts come from the metrics rollups, which trail the jobs by the fold's lag (ADR 22).
    const reply = await eventually(async () => {
      const r = await call('GET', url('qb', '/health'), key());
      return Number(((r.body as Json).jobs as Json).completed) >= 3 ? r : null;
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      jobs: { completed: expect.any(Number), failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
      workers: { idle: 1, running: 0, initializing: 0, unhealthy: 0 },
    });
    const fail = await eventually(async () => {
      const { jobs: counts } = (await call('GET', url('fail', '/health'), key())).body as { jobs: Json };
      return counts.failed === 2 && counts.retried === 1 ? counts : null;
    });
    expect(fail).toMatchObject({ failed: 2, retried: 1, inProgress: 0, inQueue: 0 });
  });

  it('carries 9 MB into /run and 19 MB into /runsync (past NATS max_payload), and answers 413 past the limits', async () => {
    const nine = 'x'.repeat(9 * 1024 * 1024);
    const id = await run('qb', { input: { blob: nine } });
    const done = await until('qb', id, 'COMPLETED', 60_000);
    expect((done.output as Json).blob).toBe(nine);

    const nineteen = 'y'.repeat(19 * 1024 * 1024);
    const sync = await call('POST', url('qb', '/runsync?wait=60000'), key(), { input: nineteen });
    expect(sync.status).toBe(200);
    expect((sync.body as Json).status).toBe('COMPLETED');
    expect((sync.body as Json).output).toBe(nineteen);

    const tooBig = await postLarge(
      url('qb', '/run'),
      key(),
      JSON.stringify({ input: 'z'.repeat(11 * 1024 * 1024) }),
    );
    expect(tooBig.status).toBe(413);
    expect(tooBig.contentType).toContain('application/problem+json');
    const tooBigSync = await postLarge(
      url('qb', '/runsync'),
      key(),
      JSON.stringify({ input: 'z'.repeat(21 * 1024 * 1024) }),
    );
    expect(tooBigSync.status).toBe(413);
    expect(tooBigSync.contentType).toContain('application/problem+json');
  }, 120_000);

  it('answers clear errors: LB endpoint 400, unknown endpoint 404, unknown job 404, worker key on /run 403', async () => {
    const lb = await call('POST', url('lb', '/run'), key(), { input: {} });
    expect(lb.status).toBe(400);
    expect((lb.body as Json).detail).toContain('load-balancing');
    const unknown = await call('POST', `${jobs.gateway}/v2/nope/run`, key(), { input: {} });
    expect(unknown.status).toBe(404);
    expect((await call('GET', url('qb', '/status/nope'), key())).status).toBe(404);
    const workerKey = jobs.workerKeys[ep('qb')];
    expect((await call('POST', url('qb', '/run'), workerKey, { input: {} })).status).toBe(403);
    expect((await call('GET', url('sleep', '/job-take/x'), workerKey)).status).toBe(403);
    const unknownProperty = await call('POST', url('qb', '/run'), key(), { input: {}, extra: 1 });
    expect(unknownProperty.status).toBe(422);
  });

  it("refuses a body Postgres's jsonb cannot store (U+0000, an unpaired surrogate) with 400, alone among others", async () => {
    try {
      for (const [raw, detail] of [
        ['{"input":{"a":"x\\u0000y"}}', /NUL/],
        ['{"input":{"a":"\\ud800"}}', /unpaired UTF-16 surrogate/],
      ] as const) {
        const replies = await Promise.all([
          call('POST', url('manual', '/run'), key(), { input: { n: 1 } }),
          call('POST', url('manual', '/run'), key(), undefined, { raw }),
          call('POST', url('manual', '/run'), key(), { input: { n: 2 } }),
        ]);
        expect(replies.map((r) => r.status)).toEqual([200, 400, 200]);
        expect((replies[1].body as Json).detail).toMatch(detail);
      }
      // An escape written as text is text: stored.
      expect(
        (await call('POST', url('manual', '/run'), key(), { input: { a: '\\u0000 \\ud800' } })).status,
      ).toBe(200);
    } finally {
      await call('POST', url('manual', '/purge-queue'), key());
    }
  });

  it('a worker running several jobs at once takes them with one job-take-batch for its free slots', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) ids.push(await run('batch', { input: { n } }));
    const worker = startWorkerProcess(jobs, 'echo', 'batch-1', {
      endpointId: ep('batch'),
      env: { WORKER_CONCURRENCY: '4' },
    });
    workers.push(worker);
    for (const id of ids) await until('batch', id, 'COMPLETED');
    // The leases as the broker recorded them: the first take leased four queued jobs at once (one per free slot),
    // and no take ever leased more than the worker's four slots.
    const takes = await jobs.sql.query<{ leased: number }>(
      `SELECT jsonb_array_length(outcome->'value'->'jobs') AS leased FROM queue_broker.processed_commands
        WHERE subject = 'worker.cmd.take' AND outcome->'value'->'jobs' IS NOT NULL
          AND outcome->'value'->'jobs' @> ANY (SELECT jsonb_build_array(jsonb_build_object('id', id))
                                                 FROM unnest($1::text[]) AS id)
        ORDER BY processed_at`,
      [ids],
    );
    expect(takes.rows[0].leased).toBe(4);
    expect(takes.rows.reduce((sum, r) => sum + r.leased, 0)).toBe(6);
    expect(Math.max(...takes.rows.map((r) => r.leased))).toBeLessThanOrEqual(4);
    await worker.kill('SIGTERM');
  });

  it("batches a worker's concurrent job-done posts into fewer recorded commands, each answered with its own result", async () => {
    const wkey = jobs.workerKeys[ep('batched')];
    const ids: string[] = [];
    for (let n = 0; n < 8; n++) ids.push(await run('batched', { input: { n } }));
    const taken = await call(
      'GET',
      url('batched', '/job-take-batch/f1?batch_size=8&job_in_progress=0'),
      wkey,
    );
    expect(taken.status).toBe(200);
    const leased = taken.body as unknown as { id: string; input: { n: number } }[];
    expect(leased.map((j) => j.id).sort()).toEqual([...ids].sort());
    const [{ t0 }] = (await jobs.sql.query<{ t0: Date }>('SELECT now() AS t0')).rows;
    const posts = await Promise.all(
      leased.map((job) =>
        call('POST', url('batched', `/job-done/f1/${job.id}`), wkey, { output: { twice: job.input.n * 2 } }),
      ),
    );
    expect(posts.map((p) => [p.status, p.body])).toEqual(Array(8).fill([200, { recorded: 'completed' }]));
    for (const [n, id] of ids.entries()) {
      expect(await status('batched', id)).toMatchObject({ status: 'COMPLETED', output: { twice: n * 2 } });
    }
    // The first went alone while the others waited for it; they went together, as one worker.cmd.done-many (no
    // other worker of this system posts several results at once).
    const batched = await jobs.sql.query<{ posts: number }>(
      `SELECT jsonb_array_length(outcome->'value'->'dones') AS posts FROM queue_broker.processed_commands
        WHERE subject = 'worker.cmd.done-many' AND processed_at >= $1`,
      [t0],
    );
    expect(batched.rows.length).toBeGreaterThan(0);
    expect(batched.rows.every((r) => r.posts >= 2)).toBe(true);
    expect(batched.rows.reduce((sum, r) => sum + r.posts, 0)).toBeLessThanOrEqual(7);
    // What the batched posts finished was announced in job.evt.changed-many events, each job once in all.
    const announced = await jobs.sql.query<{ subject: string; ids: string[] }>(
      `SELECT subject, CASE WHEN subject = 'job.evt.changed-many'
                            THEN ARRAY(SELECT j->>'jobId' FROM jsonb_array_elements(payload::jsonb->'jobs') j)
                            ELSE ARRAY[payload::jsonb->>'jobId'] END AS ids
         FROM queue_broker.outbox
        WHERE subject IN ('job.evt.changed', 'job.evt.changed-many')
          AND (payload::jsonb->>'jobId' = ANY($1) OR EXISTS (
                SELECT 1 FROM jsonb_array_elements(payload::jsonb->'jobs') j WHERE j->>'jobId' = ANY($1)))`,
      [ids],
    );
    expect(announced.rows.map((e) => e.subject)).toContain('job.evt.changed-many');
    expect(announced.rows.flatMap((e) => e.ids).sort()).toEqual([...ids].sort());
  });

  it('speaks the worker protocol by hand: 204 on an empty take, form-urlencoded job-done, progress, idempotent done', async () => {
    const wkey = jobs.workerKeys[ep('manual')];
    const form = (body: unknown) => ({
      raw: JSON.stringify(body),
      contentType: 'application/x-www-form-urlencoded',
    });
    const empty = await call('GET', url('manual', '/job-take/m1?gpu=x&job_in_progress=0'), wkey);
    expect(empty.status).toBe(204);

    const id = await run('manual', { input: { n: 1 }, webhook: 'http://127.0.0.1:9/unreachable' });
    const taken = await call('GET', url('manual', '/job-take/m1?gpu=x&job_in_progress=0'), wkey);
    expect(taken.status).toBe(200);
    expect(taken.contentType).toContain('application/json');
    expect(taken.body).toMatchObject({ id, input: { n: 1 }, webhook: 'http://127.0.0.1:9/unreachable' });

    const progress = await call(
      'POST',
      url('manual', `/job-done/m1/${id}?gpu=x&isStream=false`),
      wkey,
      undefined,
      form({ status: 'IN_PROGRESS', output: { pct: 50 } }),
    );
    expect(progress.body).toMatchObject({ recorded: 'progress' });
    expect(await status('manual', id)).toMatchObject({ status: 'IN_PROGRESS', output: { pct: 50 } });

    const intruder = await call(
      'POST',
      url('manual', `/job-done/m2/${id}`),
      wkey,
      undefined,
      form({ output: 'not mine' }),
    );
    expect(intruder.status).toBe(200);
    expect(intruder.body).toMatchObject({ recorded: 'ignored' });

    const done = await call(
      'POST',
      url('manual', `/job-done/m1/${id}?isStream=false`),
      wkey,
      undefined,
      form({ output: { pct: 100 } }),
    );
    expect(done.body).toMatchObject({ recorded: 'completed' });
    const repeated = await call(
      'POST',
      url('manual', `/job-done/m1/${id}`),
      wkey,
      undefined,
      form({ output: { pct: 100 } }),
    );
    expect(repeated.status).toBe(200);
    const late = await call(
      'POST',
      url('manual', `/job-done/m1/${id}`),
      wkey,
      undefined,
      form({ status: 'IN_PROGRESS', output: { pct: 75 } }),
    );
    expect(late.status).toBe(200);
    expect(await status('manual', id)).toMatchObject({ status: 'COMPLETED', output: { pct: 100 } });
    expect(await ignoredResults(id)).toBe(3);
    const attempts = await jobs.sql.query(
      "SELECT count(*)::int AS n FROM queue_broker.job_attempts WHERE job_id = $1 AND outcome = 'COMPLETED'",
      [id],
    );
    expect(attempts.rows[0]).toEqual({ n: 1 });

    // The webhook is tried 3 times in all, then given up (the URL refuses connections).
    const delivery = await eventually(async () => {
      const rows = await jobs.sql.query(
        'SELECT attempts, gave_up_at FROM queue_broker.webhook_deliveries WHERE job_id = $1',
        [id],
      );
      const row = rows.rows[0] as { attempts: number; gave_up_at: Date | null } | undefined;
      return row?.gave_up_at ? row : null;
    });
    expect(delivery.attempts).toBe(3);

    const ping = await call('GET', url('manual', `/ping/m1?job_id=&runpod_version=test`), wkey);
    expect(ping.status).toBe(200);
    const health = (await call('GET', url('manual', '/health'), key())).body as { workers: Json };
    expect(health.workers).toMatchObject({ idle: 1 });
    const unhealthy = await call(
      'GET',
      url('manual', `/ping/m1?status=unhealthy&check=gpu&reason=no+gpu`),
      wkey,
    );
    expect(unhealthy.status).toBe(200);
    expect(
      ((await call('GET', url('manual', '/health'), key())).body as { workers: Json }).workers,
    ).toMatchObject({
      idle: 0,
      unhealthy: 1,
    });
  });
});
