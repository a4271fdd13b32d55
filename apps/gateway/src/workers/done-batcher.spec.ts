import { describe, expect, it } from '@jest/globals';
import { DomainError, ErrorCode, Subjects, type Actor, type DoneManyItem } from '@app/contracts';
import type { CommandBus, ExecuteOptions } from '@app/messaging';
import { JobsEdgeConfig } from '../jobs/jobs-edge.config.js';
import { DoneBatcher } from './done-batcher.js';

const KEY: Actor = { userId: 'alice', kind: 'user', keyId: 'key-1' };
const TIMEOUT_MS = 4321;

interface Sent {
  subject: string;
  payload: { endpointId: string; workerId: string; dones?: DoneManyItem[]; jobId?: string };
  options?: ExecuteOptions;
  answer: (outcome: unknown) => void;
  fail: (error: unknown) => void;
}

/** A command bus that records what is sent and answers only when the test says so. */
function batcher(): { dones: DoneBatcher; sent: Sent[] } {
  const sent: Sent[] = [];
  const bus = {
    execute: (subject: string, payload: Sent['payload'], _actor: Actor, options?: ExecuteOptions) =>
      new Promise((answer, fail) => sent.push({ subject, payload, options, answer, fail })),
  } as unknown as CommandBus;
  const config = Object.assign(new JobsEdgeConfig(), { WORKER_COMMAND_TIMEOUT_MS: TIMEOUT_MS });
  return { dones: new DoneBatcher(bus, config), sent };
}

const post = (n: number, extra: Partial<DoneManyItem> = {}): DoneManyItem => ({
  id: `cmd-${n}`,
  jobId: `job-${n}`,
  hasOutput: true,
  output: { n },
  progress: false,
  stopPod: false,
  ...extra,
});
const line = (workerId = 'w1') => ({ endpointId: 'ep', workerId, actor: KEY });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('DoneBatcher', () => {
  it('sends a lone post at once as worker.cmd.done, with its own command id and the worker timeout', async () => {
    const { dones, sent } = batcher();
    const answer = dones.done(line(), post(1), 10);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      subject: Subjects.worker.done,
      payload: { endpointId: 'ep', workerId: 'w1', jobId: 'job-1', output: { n: 1 }, hasOutput: true },
      options: { commandId: 'cmd-1', timeoutMs: TIMEOUT_MS },
    });
    expect(sent[0].payload).not.toHaveProperty('id');
    sent[0].answer({ recorded: 'completed' });
    await expect(answer).resolves.toEqual({ recorded: 'completed' });
  });

  it("batches a worker's posts that came while one was on its way into one done-many, in order, answering each its own", async () => {
    const { dones, sent } = batcher();
    const first = dones.done(line(), post(1), 10);
    const later = [post(2, { progress: true }), post(2), post(3, { error: 'boom' })].map((p) =>
      dones.done(line(), p, 10),
    );
    sent[0].answer({ recorded: 'completed' });
    await first;
    await tick();
    expect(sent[1]).toMatchObject({
      subject: Subjects.worker.doneMany,
      payload: {
        endpointId: 'ep',
        workerId: 'w1',
        dones: [post(2, { progress: true }), post(2), post(3, { error: 'boom' })],
      },
      options: { timeoutMs: TIMEOUT_MS },
    });
    const answers = [{ recorded: 'progress' }, { recorded: 'completed' }, { recorded: 'failed' }];
    sent[1].answer({ dones: answers });
    await expect(Promise.all(later)).resolves.toEqual(answers);
  });

  it('never batches the posts of different workers', () => {
    const { dones, sent } = batcher();
    void dones.done(line('w1'), post(1), 10);
    void dones.done(line('w2'), post(2), 10);
    void dones.done({ ...line('w1'), endpointId: 'other' }, post(3), 10);
    expect(sent.map((s) => s.subject)).toEqual(Array(3).fill(Subjects.worker.done));
  });

  it('sends every post of a refused done-many on its own, with its id', async () => {
    const { dones, sent } = batcher();
    void dones.done(line(), post(1), 10);
    const later = [2, 3].map((n) => dones.done(line(), post(n), 10));
    sent[0].answer({ recorded: 'completed' });
    await tick();
    await tick();
    sent[1].fail(new DomainError(ErrorCode.ValidationFailed, 'the request failed validation'));
    await tick();
    expect(sent.slice(2).map((s) => [s.subject, s.options?.commandId, s.payload.jobId])).toEqual([
      [Subjects.worker.done, 'cmd-2', 'job-2'],
      [Subjects.worker.done, 'cmd-3', 'job-3'],
    ]);
    sent[2].answer({ recorded: 'completed' });
    sent[3].answer({ recorded: 'ignored', reason: 'the job is CANCELLED' });
    await expect(Promise.all(later)).resolves.toEqual([
      { recorded: 'completed' },
      { recorded: 'ignored', reason: 'the job is CANCELLED' },
    ]);
  });
});
