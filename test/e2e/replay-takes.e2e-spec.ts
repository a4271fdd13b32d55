import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Subjects, type CommandOutcome } from '@app/contracts';
import { closeBus, commandEnvelope, sendCommand } from '../support/bus.js';
import { ROOT } from '../support/paths.js';
import {
  TEST_REGISTRY_AUTH_KEYS,
  TEST_WORKER_KEY_RING,
  deleteStreams,
  startApps,
  type RunningSystem,
} from '../support/system.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { testEnv } from '../support/test-env.js';

const run = promisify(execFile);

const JOBS = 400;
const WORKERS = 6;
const ENDPOINT = 'ep-replay-takes';
const ACTOR = { userId: 'replay-takes-owner', kind: 'user' } as const;

interface TakeValue {
  jobs: { id: string }[];
}

/**
 * Takes decided live are rebuilt identically (docs/adr/0028-recorded-take-decisions.md). Live, the broker applies
 * the takes of different workers in parallel lanes (ADR 13), and which queued job each one leases depends on which
 * transaction locked first (FOR UPDATE SKIP LOCKED); a rebuild applies them one after another. Six workers of one
 * endpoint take while 400 jobs are submitted, then `rebuild` must find every outcome and every table identical.
 *
 * Only the queue broker (and the scheduler) run live, the commands going straight to the bus as the gateway sends
 * them, in REPLAY_MODE so that no sweep or metrics sampler adds commands of its own: the history is the test's
 * commands alone.
 */
describe('replay tool: takes of several workers of one endpoint', () => {
  let db: TestDatabase;
  let system: RunningSystem;

  beforeAll(async () => {
    db = await createTestDatabase('replay_takes');
    system = await startApps({
      // The scheduler only for its fleet tables, which it loads at start, as the rebuild's does.
      apps: ['cluster-scheduler', 'queue-broker'],
      databaseUrl: db.url,
      env: { REPLAY_MODE: 'true' },
    });
  }, 120_000);

  afterAll(async () => {
    await closeBus();
    await system?.stop();
    if (system) await deleteStreams(system.natsPrefix);
    await db?.drop();
  });

  const send = async <T>(subject: string, payload: unknown): Promise<T> => {
    const outcome: CommandOutcome = await sendCommand(
      system.natsPrefix,
      commandEnvelope(subject, payload, { actor: ACTOR }),
      30_000,
    );
    if (!outcome.ok) throw new Error(`${subject}: ${outcome.error.code} ${outcome.error.message}`);
    return outcome.value as T;
  };

  it('rebuilds identical outcomes and tables after workers took concurrently', async () => {
    let submitted = 0;
    const submits = (async () => {
      // Waves of 20 at once, so takes keep meeting jobs that were just queued.
      while (submitted < JOBS) {
        const wave = Array.from({ length: 20 }, (_, i) => submitted + i);
        submitted += wave.length;
        await Promise.all(
          wave.map((i) => send(Subjects.job.submit, { endpointId: ENDPOINT, sync: false, input: { i } })),
        );
      }
    })();
    let taken = 0;
    let submitting = true;
    void submits.finally(() => (submitting = false));
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        for (let n = 0; ; n++) {
          const value = await send<TakeValue>(Subjects.worker.take, {
            endpointId: ENDPOINT,
            workerId: `w${w}`,
            batchSize: 1 + ((w + n) % 3),
            requestedAt: new Date().toISOString(),
          });
          taken += value.jobs.length;
          if (!value.jobs.length && !submitting && taken >= JOBS) return;
        }
      }),
    );
    await submits;
    expect(taken).toBe(JOBS);
    const raced = await racedTakes(db.url);
    // The history is one the rebuild cannot reproduce by choosing again (hundreds of pairs on the test machine).
    expect(raced).toBeGreaterThan(0);

    const { stdout, stderr, code } = await cli(['rebuild', '--json']);
    // A rebuild that printed no report says why on stderr: shown rather than a JSON syntax error.
    if (!stdout.trim()) {
      throw new Error(`the rebuild printed no report (exit ${code}):\n${stderr.slice(-4000)}`);
    }
    const report = JSON.parse(stdout) as {
      firstPass: { applied: number; failed: number };
      outcomeMismatches: unknown[];
      comparison: { differences: unknown[] };
    };
    // The first few, so a failure shows what differs.
    expect({ count: report.outcomeMismatches.length, first: report.outcomeMismatches.slice(0, 3) }).toEqual({
      count: 0,
      first: [],
    });
    expect(report.comparison.differences).toEqual([]);
    expect(report.firstPass).toMatchObject({ failed: 0 });
    expect(report.firstPass.applied).toBeGreaterThan(JOBS);
    expect(code).toBe(0);
  }, 300_000);

  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = {
      ...process.env,
      NATS_URL: testEnv().natsUrl,
      NATS_PREFIX: system.natsPrefix,
      DATABASE_URL: db.url,
      REGISTRY_AUTH_KEYS: TEST_REGISTRY_AUTH_KEYS,
      WORKER_KEY_RING: TEST_WORKER_KEY_RING,
      LOG_LEVEL: 'warn',
    };
    try {
      const out = await run(process.execPath, [join(ROOT, 'dist/tools/replay/replay.mjs'), ...args], {
        env,
        maxBuffer: 64 * 1024 * 1024,
      });
      return { code: 0, ...out };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }
});

/**
 * Pairs of takes (a applied before b, by processed_at) where b leased a job that was queued when a was applied and
 * is older than a's: applying them one after another in that order, a would have leased b's job. Non-zero means
 * the live history is one a rebuild cannot reproduce by choosing again.
 */
async function racedTakes(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(`
      WITH takes AS (
        SELECT p.processed_at AS at, j.value->>'id' AS job_id
        FROM queue_broker.processed_commands p, jsonb_array_elements(p.outcome->'value'->'jobs') j
        WHERE p.subject = 'worker.cmd.take'
      ), submits AS (
        SELECT processed_at AS at, outcome->'value'->>'id' AS job_id
        FROM queue_broker.processed_commands WHERE subject = 'job.cmd.submit'
      )
      SELECT count(*) AS n
      FROM takes a
      JOIN takes b ON b.at > a.at
      JOIN queue_broker.jobs ja ON ja.id = a.job_id
      JOIN queue_broker.jobs jb ON jb.id = b.job_id
      JOIN submits sb ON sb.job_id = b.job_id
      WHERE sb.at < a.at AND (jb.queued_at, jb.id) < (ja.queued_at, ja.id)`);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}
