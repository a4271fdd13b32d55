import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFaultSystem, type FaultSystem, REPLICATED } from './support/fault-system.js';
import { call, sleep, until } from './support/fault-calls.js';
import { startWorkerChild, type WorkerChild } from './support/fault-workers.js';
import { recordVerdict } from './support/verdict.js';

/**
 * Workers that die or go silent: their jobs are handed to another worker or FAILED with a reason, never left
 * IN_PROGRESS, and a frozen worker that comes back late has its results ignored (no job completed twice).
 * Workers are processes of @app/worker-sdk (test/faults/support/crash-worker.mjs); the broker declares a silent
 * worker lost after 3 s here (30 s by default).
 */
const LOST_AFTER_MS = 3000;
const MAX_ATTEMPTS = 3;
const SETTLE_MS = 60_000;

let fs: FaultSystem;
const children: WorkerChild[] = [];

beforeAll(async () => {
  fs = await startFaultSystem('workers', {
    apps: ['gateway', 'queue-broker'],
    replicas: REPLICATED,
    endpoints: ['killed', 'stalled', 'poison'],
    env: { COMMAND_ACK_WAIT_MS: '3000' },
    appEnv: {
      'queue-broker': {
        WORKER_LOST_AFTER_MS: String(LOST_AFTER_MS),
        LEASE_CONFIRM_GRACE_MS: '5000',
        JOB_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
        SWEEP_INTERVAL_MS: '250',
      },
      gateway: { JOB_TAKE_LONG_POLL_MS: '5000', JOB_POLL_RECHECK_MS: '1000', JOB_TAKE_HAND_OUT_MS: '4000' },
    },
  });
  // The broker does not declare workers lost during its first WORKER_LOST_AFTER_MS after a start.
  await sleep(LOST_AFTER_MS);
}, 120_000);

afterAll(async () => {
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await Promise.all(children.map((c) => c.exited));
  await fs?.close();
});

function worker(endpoint: string, id: string, concurrency = 3): WorkerChild {
  const child = startWorkerChild(fs, 'crash-worker', fs.endpoints[endpoint], id, {
    WORKER_CONCURRENCY: String(concurrency),
  });
  children.push(child);
  return child;
}

async function submit(endpoint: string, input: Record<string, unknown>): Promise<string> {
  const reply = await call('POST', `${fs.gateway}/v2/${fs.endpoints[endpoint]}/run`, fs.user.key, { input });
  expect(reply.status).toBe(200);
  return reply.body.id as string;
}

interface JobRow {
  id: string;
  status: string;
  error: string | null;
  last_worker_id: string | null;
}

async function jobs(ids: string[]): Promise<JobRow[]> {
  const { rows } = await fs.sql.query<JobRow>(
    'SELECT id, status, error, last_worker_id FROM queue_broker.jobs WHERE id = ANY($1) ORDER BY id',
    [ids],
  );
  return rows;
}

const terminal = (rows: JobRow[]) => rows.every((r) => !['IN_QUEUE', 'IN_PROGRESS'].includes(r.status));

async function attempts(ids: string[]) {
  const { rows } = await fs.sql.query<{ job_id: string; worker_id: string; outcome: string | null }>(
    'SELECT job_id, worker_id, outcome FROM queue_broker.job_attempts WHERE job_id = ANY($1) ORDER BY job_id COLLATE "C", attempt',
    [ids],
  );
  return rows;
}

async function completedTwice(ids: string[]): Promise<number> {
  const rows = await attempts(ids);
  const completions = new Map<string, number>();
  for (const r of rows) {
    if (r.outcome === 'COMPLETED') completions.set(r.job_id, (completions.get(r.job_id) ?? 0) + 1);
  }
  return [...completions.values()].filter((n) => n > 1).length;
}

describe('workers that die or go silent', () => {
  it('a worker killed mid-job: its jobs are handed to another worker', async () => {
    const doomed = worker('killed', 'killed-a');
    const ids = [
      await submit('killed', { ms: 4000, n: 1 }),
      await submit('killed', { ms: 4000, n: 2 }),
      await submit('killed', { ms: 4000, n: 3 }),
    ];
    for (const id of ids) await doomed.waitFor(`started ${id}`);
    doomed.kill('SIGKILL');
    await doomed.exited;
    const killedAt = Date.now();
    worker('killed', 'killed-b');
    const settled = await until(async () => {
      const rows = await jobs(ids);
      return terminal(rows) ? rows : null;
    }, SETTLE_MS);
    const rows = await jobs(ids);
    const handedOver = rows.filter((r) => r.status === 'COMPLETED' && r.last_worker_id === 'killed-b').length;
    const failedWithReason = rows.filter((r) => r.status === 'FAILED' && r.error).length;
    const stuck = rows.filter((r) => r.status === 'IN_PROGRESS' || r.status === 'IN_QUEUE').length;
    const twice = await completedTwice(ids);
    const counts = {
      jobs: ids.length,
      handedOver,
      failedWithReason,
      stuck,
      completedTwice: twice,
      settleMs: Date.now() - killedAt,
    };
    const pass =
      settled !== null && stuck === 0 && twice === 0 && handedOver + failedWithReason === ids.length;
    recordVerdict({ name: 'worker killed mid-job', pass, counts });

    expect({ stuck, twice, handledOrFailed: handedOver + failedWithReason }).toEqual({
      stuck: 0,
      twice: 0,
      handledOrFailed: ids.length,
    });
    expect(await attempts(ids)).toEqual(
      [...ids].sort().flatMap((id) => [
        { job_id: id, worker_id: 'killed-a', outcome: 'WORKER_LOST' },
        { job_id: id, worker_id: 'killed-b', outcome: 'COMPLETED' },
      ]),
    );
  });

  it('a worker that stops heartbeating: jobs handed over, its late results ignored', async () => {
    const frozen = worker('stalled', 'stalled-a');
    const ids = [
      await submit('stalled', { ms: 2500, n: 1 }),
      await submit('stalled', { ms: 2500, n: 2 }),
      await submit('stalled', { ms: 2500, n: 3 }),
    ];
    for (const id of ids) await frozen.waitFor(`started ${id}`);
    // SIGSTOP: the process is still there but sends nothing (no ping, no result) until SIGCONT.
    frozen.kill('SIGSTOP');
    const stoppedAt = Date.now();
    worker('stalled', 'stalled-b');
    const settled = await until(async () => {
      const rows = await jobs(ids);
      return terminal(rows) ? rows : null;
    }, SETTLE_MS);
    const settleMs = Date.now() - stoppedAt;
    // The frozen worker wakes up, finishes its (long lost) jobs and posts their results: all must be ignored.
    frozen.kill('SIGCONT');
    const ignored = await until(async () => {
      const { rows } = await fs.sql.query<{ n: string }>(
        `SELECT count(DISTINCT job_id) AS n FROM queue_broker.ignored_results WHERE job_id = ANY($1) AND worker_id = 'stalled-a'`,
        [ids],
      );
      return Number(rows[0].n) === ids.length ? Number(rows[0].n) : null;
    }, 30_000);
    const rows = await jobs(ids);
    const handedOver = rows.filter(
      (r) => r.status === 'COMPLETED' && r.last_worker_id === 'stalled-b',
    ).length;
    const failedWithReason = rows.filter((r) => r.status === 'FAILED' && r.error).length;
    const stuck = rows.filter((r) => r.status === 'IN_PROGRESS' || r.status === 'IN_QUEUE').length;
    const twice = await completedTwice(ids);
    const counts = {
      jobs: ids.length,
      handedOver,
      failedWithReason,
      stuck,
      completedTwice: twice,
      lateResultsIgnored: ignored ?? 0,
      settleMs,
    };
    const pass =
      settled !== null &&
      stuck === 0 &&
      twice === 0 &&
      handedOver + failedWithReason === ids.length &&
      ignored === ids.length;
    recordVerdict({ name: 'worker stops heartbeating', pass, counts });

    expect({ stuck, twice, handledOrFailed: handedOver + failedWithReason, ignored }).toEqual({
      stuck: 0,
      twice: 0,
      handledOrFailed: ids.length,
      ignored: ids.length,
    });
    // What a client sees: the output of the worker that kept its lease.
    for (const id of ids) {
      const status = await call('GET', `${fs.gateway}/v2/${fs.endpoints.stalled}/status/${id}`, fs.user.key);
      expect(status.body).toMatchObject({ id, status: 'COMPLETED', workerId: 'stalled-b' });
    }
  });

  it(`a job that kills every worker it reaches FAILS with the reason after ${MAX_ATTEMPTS} leases`, async () => {
    const id = await submit('poison', { crash: true });
    // A supervisor, as a deployment would have: a worker that dies is replaced.
    let spawned = 0;
    const stop = new AbortController();
    const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve()));
    const supervise = (async () => {
      while (!stop.signal.aborted && spawned < MAX_ATTEMPTS + 2) {
        spawned += 1;
        const child = worker('poison', `poison-${spawned}`, 1);
        await Promise.race([child.exited, stopped]);
        child.kill('SIGKILL');
      }
    })();
    const started = Date.now();
    const settled = await until(async () => {
      const rows = await jobs([id]);
      return terminal(rows) ? rows : null;
    }, 90_000);
    stop.abort();
    await supervise;
    const [row] = await jobs([id]);
    const leases = (await attempts([id])).length;
    const counts = {
      jobs: 1,
      failedWithReason: row.status === 'FAILED' && row.error ? 1 : 0,
      stuck: row.status === 'IN_PROGRESS' || row.status === 'IN_QUEUE' ? 1 : 0,
      leases,
      workersStarted: spawned,
      settleMs: Date.now() - started,
    };
    const pass = settled !== null && counts.failedWithReason === 1 && leases === MAX_ATTEMPTS;
    recordVerdict({ name: 'job that kills every worker', pass, counts });

    expect(row).toMatchObject({ status: 'FAILED' });
    expect(row.error).toMatch(/worker|lost|attempt/i);
    expect(leases).toBe(MAX_ATTEMPTS);
  });
});
