import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects, type Actor, type TakeResult } from '@app/contracts';
import type { HandlerHarness, SendOptions } from '../../../../test/support/handler-harness.js';
import { startQueueBrokerCommands } from '../../../../test/support/queue-broker-commands.js';
import type { WorkerCommands } from '../../../../test/support/queue-broker-workers.js';

/**
 * What the worker and queue commands refuse or ignore, over queue-broker's real schema: each refusal writes
 * nothing, each ignored post is recorded as ignored.
 */

const SYSTEM: Actor = { userId: 'system', kind: 'system' };
const ENDPOINT = 'ep-handlers';

let commands: WorkerCommands;
let harness: HandlerHarness;

beforeAll(async () => {
  commands = await startQueueBrokerCommands('workers');
  harness = commands.harness;
});

afterAll(async () => {
  await commands?.stop();
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
