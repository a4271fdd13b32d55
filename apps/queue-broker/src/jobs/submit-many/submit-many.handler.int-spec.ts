import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ErrorCode, Subjects, jobIdFor, type SubmitManyItem } from '@app/contracts';
import type { HandlerHarness } from '../../../../../test/support/handler-harness.js';
import { WorkerCommands } from '../../../../../test/support/queue-broker-workers.js';
import { QueueBrokerConfig } from '../../queue-broker.config.js';
import { JobLifecycle } from '../job-lifecycle.js';
import { JobChunksRepository } from '../job-chunks.repository.js';
import { SubmitJobs } from '../submit-jobs.js';
import { SubmitManyHandler } from './submit-many.handler.js';

/**
 * `job.cmd.submit-many` over queue-broker's real schema: each job recorded as its own submit would record it, a
 * all announced in one event, in order; a command with one bad job refused whole, writing nothing (the gateway then sends
 * each job alone).
 */

const ENDPOINT = 'ep-submit-many';

let commands: WorkerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await WorkerCommands.start('submit_many');
  const { jobs, takes } = commands;
  const submits = new SubmitJobs(jobs, new JobLifecycle(jobs, new JobChunksRepository()), takes);
  harness = commands.harness.register(new SubmitManyHandler(submits, new QueueBrokerConfig()));
});

afterAll(async () => {
  await commands?.stop();
});

const item = (input: unknown, extra: Partial<SubmitManyItem> = {}): SubmitManyItem => ({
  id: randomUUID(),
  sync: false,
  input,
  ...extra,
});

interface JobRow {
  id: string;
  endpoint_id: string;
  owner_id: string;
  status: string;
  sync: boolean;
  input: unknown;
  webhook: string | null;
  ttl_ms: number | null;
  retention_ms: number;
  execution_timeout_ms: number;
  low_priority: boolean;
}

async function jobRows(ids: string[]): Promise<JobRow[]> {
  const rows = await harness.dataSource.query<JobRow[]>(
    `SELECT id, endpoint_id, owner_id, status, sync, input, webhook, ttl_ms::int, retention_ms::int,
            execution_timeout_ms::int, low_priority
       FROM queue_broker.jobs WHERE id = ANY($1)`,
    [ids],
  );
  return ids.map((id) => rows.find((r) => r.id === id)!);
}

describe('job.cmd.submit-many', () => {
  it("records each job as its own submit would, in order, announced in one job.evt.queued-many, and answers each job's id", async () => {
    const items = [
      item({ n: 0 }),
      item('text', { sync: true, waitMs: 120_000 }),
      item({ n: 2 }, { webhook: 'https://hooks.example.com/a', policy: { ttl: 60_000, lowPriority: true } }),
    ];
    const before = (await harness.events()).length;
    const result = await harness.send(Subjects.job.submitMany, { endpointId: ENDPOINT, jobs: items });
    // The ids each job's own submit (command id = the item's id) would have given it.
    const ids = items.map((i) => jobIdFor(i.id, i.sync));
    expect(result).toEqual({ jobs: ids.map((id) => ({ id, status: 'IN_QUEUE' })) });

    const rows = await jobRows(ids);
    expect(rows.map((r) => [r.status, r.endpoint_id, r.owner_id, r.sync, r.input])).toEqual([
      ['IN_QUEUE', ENDPOINT, 'user-alice', false, { n: 0 }],
      ['IN_QUEUE', ENDPOINT, 'user-alice', true, 'text'],
      ['IN_QUEUE', ENDPOINT, 'user-alice', false, { n: 2 }],
    ]);
    // The runsync job keeps its result as long as its wait asked (two minutes), the others the /run default.
    const config = new QueueBrokerConfig();
    expect(rows.map((r) => r.retention_ms)).toEqual([
      config.RUN_RETENTION_MS,
      120_000,
      config.RUN_RETENTION_MS,
    ]);
    expect(rows[2]).toMatchObject({
      webhook: 'https://hooks.example.com/a',
      ttl_ms: 60_000,
      low_priority: true,
    });
    expect(rows[0]).toMatchObject({ webhook: null, ttl_ms: null, low_priority: false });

    // One event in the outbox for the three jobs, each item what its own job.evt.queued would have said.
    expect((await harness.events()).slice(before)).toEqual([
      {
        subject: Subjects.job.queuedMany,
        payload: { jobs: ids.map((jobId) => ({ endpointId: ENDPOINT, jobId })) },
      },
    ]);
  });

  it('inserts its jobs in one statement, however many, each row what a submit-many of that job alone records', async () => {
    const inputs: unknown[] = [{ n: 0, text: 'say "hi"\\' }, [1, 2], 'text', 3.5, { deep: { a: [null] } }];
    const items = (tag: string) =>
      inputs.map((input, n) =>
        item(input, {
          sync: n === 1,
          webhook: n === 2 ? `https://hooks.example.com/${tag}` : undefined,
          policy: n === 3 ? { ttl: 60_000, lowPriority: true, executionTimeout: 30_000 } : undefined,
        }),
      );
    const together = items('together');
    const alone = items('alone');
    const sent = async (jobs: SubmitManyItem[]) =>
      (await harness.statements(() => harness.send(Subjects.job.submitMany, { endpointId: ENDPOINT, jobs })))
        .statements;
    const forFive = await sent(together);
    expect(
      await sent([...together, ...items('more'), ...items('most')].map((i) => ({ ...i, id: randomUUID() }))),
    ).toBe(forFive);
    for (const one of alone) await sent([one]);
    const shape = (list: SubmitManyItem[]) =>
      harness.dataSource.query<unknown[]>(
        `SELECT status, sync, input, replace(webhook, 'alone', 'together') AS webhook, s3_config, ttl_ms,
                low_priority, retention_ms, execution_timeout_ms, output, has_output, error, attempts, retries,
                stream_seq, stream_read, stop_pending, lease_worker_id, started_at, finished_at,
                expires_at - created_at AS lifetime, queued_at = created_at AS queued_on_create
           FROM queue_broker.jobs WHERE id = ANY($1) ORDER BY array_position($1, id)`,
        [list.map((i) => jobIdFor(i.id, i.sync))],
      );
    const rows = await shape(together);
    expect(rows).toHaveLength(5);
    expect(rows).toEqual(await shape(alone));
  });

  it('refuses the whole command for one bad job, writing nothing: what jsonb cannot store, a repeated id, an invalid policy', async () => {
    const nul = await harness.refusal(() =>
      harness.send(Subjects.job.submitMany, {
        endpointId: ENDPOINT,
        jobs: [item({ ok: 1 }), item({ text: 'a\u0000b' })],
      }),
    );
    expect(nul).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
    expect(nul.errors).toEqual(['jobs.1.input: strings may not contain U+0000 (\\u0000)']);

    const surrogate = await harness.refusal(() =>
      harness.send(Subjects.job.submitMany, {
        endpointId: ENDPOINT,
        jobs: [item({ ok: 1 }), item({ ok: 2 }), item(['\ud800 alone'])],
      }),
    );
    expect(surrogate).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
    expect(surrogate.errors).toEqual([
      'jobs.2.input: strings may not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)',
    ]);

    const twice = item({ n: 1 });
    expect(
      await harness.refusal(() =>
        harness.send(Subjects.job.submitMany, { endpointId: ENDPOINT, jobs: [twice, { ...twice }] }),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });

    expect(
      await harness.refusal(() =>
        harness.send(Subjects.job.submitMany, {
          endpointId: ENDPOINT,
          jobs: [item({ n: 1 }), item({ n: 2 }, { policy: { ttl: 1 } })],
        }),
      ),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });

    expect(
      await harness.refusal(() => harness.send(Subjects.job.submitMany, { endpointId: ENDPOINT, jobs: [] })),
    ).toMatchObject({ wrote: [], code: ErrorCode.ValidationFailed });
  });
});
