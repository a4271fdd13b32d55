import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, eventually, startJobsSystem, type JobsSystem } from './jobs.e2e-helpers.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.e2e-helpers.js';

type Json = Record<string, unknown>;

/**
 * Durability: a worker killed mid-job loses its lease and another worker completes the job; the queue broker killed
 * with SIGKILL in the middle of 1,000 jobs loses none, and completes none twice (checked in SQL).
 */
describe('jobs survive crashes', () => {
  let jobs: JobsSystem;
  const workers: WorkerProcess[] = [];
  const url = (name: string, path: string) => `${jobs.gateway}/v2/${jobs.endpoints[name]}${path}`;
  const status = async (name: string, id: string) =>
    (await call('GET', url(name, `/status/${id}`), jobs.user.key)).body as Json;

  beforeAll(async () => {
    jobs = await startJobsSystem('durable', {
      endpoints: ['lost', 'load'],
      broker: { WORKER_LOST_AFTER_MS: '3000', LEASE_CONFIRM_GRACE_MS: '5000', COMMAND_ACK_WAIT_MS: '3000' },
      gateway: { JOB_TAKE_LONG_POLL_MS: '5000', COMMAND_TIMEOUT_MS: '45000', JOB_TAKE_HAND_OUT_MS: '4000' },
    });
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill('SIGKILL')));
    await jobs?.close();
  });

  it('re-queues the job of a worker killed mid-job; another worker completes it', async () => {
    const first = startWorkerProcess(jobs, 'sleep', 'lost-a', { endpointId: jobs.endpoints.lost });
    workers.push(first);
    const run = await call('POST', url('lost', '/run'), jobs.user.key, { input: { ms: 3000 } });
    const id = (run.body as Json).id as string;
    await first.waitFor(`started ${id}`);
    await first.kill('SIGKILL');
    const second = startWorkerProcess(jobs, 'sleep', 'lost-b', { endpointId: jobs.endpoints.lost });
    workers.push(second);
    const done = await eventually(async () => {
      const s = await status('lost', id);
      return s.status === 'COMPLETED' ? s : null;
    }, 40_000);
    expect(done).toMatchObject({ id, workerId: 'lost-b', output: { slept: 3000 } });
    const attempts = await jobs.sql.query(
      'SELECT worker_id, outcome FROM queue_broker.job_attempts WHERE job_id = $1 ORDER BY attempt',
      [id],
    );
    expect(attempts.rows).toEqual([
      { worker_id: 'lost-a', outcome: 'WORKER_LOST' },
      { worker_id: 'lost-b', outcome: 'COMPLETED' },
    ]);
    // The sweep that found lost-a silent counted it (the GpucpWorkersLost alert, deploy/components/monitoring).
    const metrics = await (await fetch(jobs.system.metricsUrl('queue-broker'))).text();
    expect(metrics).toMatch(/^queue_broker_workers_lost_total 1$/m);
  }, 90_000);

  it('loses no accepted job and completes none twice when the broker is killed mid-load (1,000 jobs)', async () => {
    for (const n of [1, 2]) {
      workers.push(
        startWorkerProcess(jobs, 'echo', `load-${n}`, {
          endpointId: jobs.endpoints.load,
          env: { WORKER_CONCURRENCY: '4' },
        }),
      );
    }
    const total = 1000;
    const accepted: string[] = [];
    const refused: number[] = [];
    let next = 0;
    let killed: Promise<void> = Promise.resolve();
    const submitter = async () => {
      while (next < total) {
        const n = next++;
        if (n === 300) {
          killed = (async () => {
            await jobs.system.kill('queue-broker', 'SIGKILL');
            await new Promise((r) => setTimeout(r, 1500));
            await jobs.system.restart('queue-broker');
          })();
        }
        try {
          const reply = await call('POST', url('load', '/run'), jobs.user.key, { input: { n } });
          if (reply.status === 200) accepted.push((reply.body as Json).id as string);
          else refused.push(reply.status);
        } catch {
          refused.push(0);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, submitter));
    await killed;
    expect(accepted.length + refused.length).toBe(total);
    expect(accepted.length).toBeGreaterThan(total * 0.9);

    const terminal = async () =>
      Number(
        (
          await jobs.sql.query<{ n: string }>(
            `SELECT count(*) AS n FROM queue_broker.jobs WHERE id = ANY($1) AND status IN ('COMPLETED','FAILED','CANCELLED','TIMED_OUT')`,
            [accepted],
          )
        ).rows[0].n,
      );
    await eventually(async () => (await terminal()) === accepted.length, 180_000);
    const rows = await jobs.sql.query<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM queue_broker.jobs WHERE id = ANY($1) GROUP BY status`,
      [accepted],
    );
    const unfinished = await jobs.sql.query(
      `SELECT j.id, j.status, j.error, (SELECT json_agg(json_build_object('worker', a.worker_id, 'outcome', a.outcome,
         'started', a.started_at, 'ended', a.ended_at) ORDER BY a.attempt) FROM queue_broker.job_attempts a
         WHERE a.job_id = j.id) AS attempts
       FROM queue_broker.jobs j WHERE j.id = ANY($1) AND j.status <> 'COMPLETED' LIMIT 5`,
      [accepted],
    );
    // Named in the failure: which jobs did not complete, why, and their leases.
    expect({ rows: rows.rows, unfinished: unfinished.rows }).toEqual({
      rows: [{ status: 'COMPLETED', n: String(accepted.length) }],
      unfinished: [],
    });
    const twice = await jobs.sql.query(
      `SELECT job_id FROM queue_broker.job_attempts WHERE outcome = 'COMPLETED' GROUP BY job_id HAVING count(*) > 1`,
    );
    expect(twice.rows).toEqual([]);
    const completions = await jobs.sql.query<{ n: string }>(
      `SELECT count(*) AS n FROM queue_broker.job_attempts WHERE job_id = ANY($1) AND outcome = 'COMPLETED'`,
      [accepted],
    );
    expect(Number(completions.rows[0].n)).toBe(accepted.length);
    // Jobs whose submission got no 200 (the broker was down) were recorded anyway: they finish too, once.
    const open = await jobs.sql.query<{ n: string }>(
      `SELECT count(*) AS n FROM queue_broker.jobs WHERE endpoint_id = $1 AND status IN ('IN_QUEUE','IN_PROGRESS')`,
      [jobs.endpoints.load],
    );
    expect(Number(open.rows[0].n)).toBe(0);
  }, 300_000);
});
