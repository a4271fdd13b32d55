import { describe, expect, it } from '@jest/globals';
import {
  DomainError,
  ErrorCode,
  SUBMIT_MANY_MAX,
  Subjects,
  jobIdFor,
  type Actor,
  type SubmitManyItem,
} from '@app/contracts';
import type { CommandBus, ExecuteOptions } from '@app/messaging';
import { BATCH_HOLD_MS } from './command-batcher.js';
import { SubmitBatcher } from './submit-batcher.js';

const ALICE: Actor = { userId: 'alice', kind: 'user', keyId: 'key-1' };
const BOB: Actor = { userId: 'bob', kind: 'user', keyId: 'key-2' };

interface Sent {
  subject: string;
  payload: { endpointId: string; jobs?: SubmitManyItem[]; input?: unknown };
  actor: Actor;
  options?: ExecuteOptions;
  answer: (outcome: unknown) => void;
  fail: (error: unknown) => void;
}

/** A command bus that records what is sent and answers only when the test says so. */
function fakeBus(): { bus: CommandBus; sent: Sent[] } {
  const sent: Sent[] = [];
  const bus = {
    execute: (subject: string, payload: Sent['payload'], actor: Actor, options?: ExecuteOptions) =>
      new Promise((answer, fail) => sent.push({ subject, payload, actor, options, answer, fail })),
  } as unknown as CommandBus;
  return { bus, sent };
}

const item = (n: number): SubmitManyItem => ({ id: `cmd-${n}`, sync: false, input: { n } });
const accepted = (...items: SubmitManyItem[]) => ({
  jobs: items.map((i) => ({ id: jobIdFor(i.id, i.sync), status: 'IN_QUEUE' })),
});
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Job 1 sent alone and answered; jobs 2 and 3, which came meanwhile, sent batched (sent[1]), not yet answered. */
async function twoBatchedBehindOne(): Promise<{ sent: Sent[]; later: Promise<unknown>[] }> {
  const { bus, sent } = fakeBus();
  const batcher = new SubmitBatcher(bus);
  const first = batcher.submit('ep', ALICE, item(1), 10);
  const later = [2, 3].map((n) => batcher.submit('ep', ALICE, item(n), 10));
  for (const promise of later) promise.catch(() => undefined);
  sent[0].answer({ id: 'job-1', status: 'IN_QUEUE' });
  await first;
  await tick();
  expect(sent[1].subject).toBe(Subjects.job.submitMany);
  return { sent, later };
}

describe('SubmitBatcher', () => {
  it('sends a lone submit at once, as job.cmd.submit with its own command id', async () => {
    const { bus, sent } = fakeBus();
    const batcher = new SubmitBatcher(bus);
    const answer = batcher.submit('ep', ALICE, item(1), 10);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      subject: Subjects.job.submit,
      payload: { endpointId: 'ep', sync: false, input: { n: 1 } },
      actor: ALICE,
      options: { commandId: 'cmd-1' },
    });
    sent[0].answer({ id: 'job-1', status: 'IN_QUEUE', taken: undefined });
    await expect(answer).resolves.toEqual({ id: 'job-1', status: 'IN_QUEUE' });
  });

  it('batches the submits that arrive while one is on its way into one submit-many, answering each its own job', async () => {
    const { bus, sent } = fakeBus();
    const batcher = new SubmitBatcher(bus);
    const first = batcher.submit('ep', ALICE, item(1), 10);
    const later = [2, 3, 4].map((n) => batcher.submit('ep', ALICE, item(n), 10));
    expect(sent).toHaveLength(1);
    sent[0].answer({ id: 'job-1', status: 'IN_QUEUE' });
    await tick();
    expect(sent).toHaveLength(2);
    expect(sent[1].subject).toBe(Subjects.job.submitMany);
    expect(sent[1].payload).toEqual({
      endpointId: 'ep',
      jobs: [item(2), item(3), item(4)],
    });
    expect(sent[1].actor).toEqual(ALICE);
    sent[1].answer(accepted(item(2), item(3), item(4)));
    await expect(first).resolves.toEqual({ id: 'job-1', status: 'IN_QUEUE' });
    await expect(Promise.all(later)).resolves.toEqual(accepted(item(2), item(3), item(4)).jobs);
    // Nothing waits any more: the next submit goes alone again.
    await tick();
    void batcher.submit('ep', ALICE, item(5), 10);
    expect(sent[2].subject).toBe(Subjects.job.submit);
  });

  it('does not hold the next submits longer than BATCH_HOLD_MS behind one the broker does not answer', async () => {
    const { bus, sent } = fakeBus();
    const batcher = new SubmitBatcher(bus);
    const stuck = batcher.submit('ep', ALICE, item(1), 10);
    const later = [2, 3].map((n) => batcher.submit('ep', ALICE, item(n), 10));
    expect(sent).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, BATCH_HOLD_MS * 4));
    // Sent while the first is still unanswered, and answered on their own.
    expect(sent).toHaveLength(2);
    expect(sent[1].payload.jobs).toEqual([item(2), item(3)]);
    sent[1].answer(accepted(item(2), item(3)));
    await expect(Promise.all(later)).resolves.toEqual(accepted(item(2), item(3)).jobs);
    sent[0].answer({ id: 'job-1', status: 'IN_QUEUE' });
    await expect(stuck).resolves.toEqual({ id: 'job-1', status: 'IN_QUEUE' });
  });

  it('never batches the submits of different endpoints or callers together', () => {
    const { bus, sent } = fakeBus();
    const batcher = new SubmitBatcher(bus);
    void batcher.submit('ep', ALICE, item(1), 10);
    void batcher.submit('ep', BOB, item(2), 10);
    void batcher.submit('ep', { ...ALICE, keyId: 'key-3' }, item(3), 10);
    void batcher.submit('other', ALICE, item(4), 10);
    expect(sent.map((s) => s.subject)).toEqual(Array(4).fill(Subjects.job.submit));
  });

  it('sends every job of a refused submit-many on its own, with its id; each gets its own answer', async () => {
    const { sent, later } = await twoBatchedBehindOne();
    sent[1].fail(new DomainError(ErrorCode.ValidationFailed, 'the request failed validation'));
    await tick();
    expect(sent.slice(2).map((s) => [s.subject, s.options?.commandId])).toEqual([
      [Subjects.job.submit, 'cmd-2'],
      [Subjects.job.submit, 'cmd-3'],
    ]);
    sent[2].answer({ id: 'job-2', status: 'IN_QUEUE' });
    sent[3].fail(new DomainError(ErrorCode.ValidationFailed, 'bad input'));
    await expect(later[0]).resolves.toEqual({ id: 'job-2', status: 'IN_QUEUE' });
    await expect(later[1]).rejects.toMatchObject({ code: ErrorCode.ValidationFailed, message: 'bad input' });
  });

  it('answers every job of a submit-many whose fate is unknown with that, and sends none again', async () => {
    const { sent, later } = await twoBatchedBehindOne();
    const unknown = new DomainError(ErrorCode.OwnerUnavailable, 'queue-broker has not applied command x');
    sent[1].fail(unknown);
    await expect(later[0]).rejects.toBe(unknown);
    await expect(later[1]).rejects.toBe(unknown);
    expect(sent).toHaveLength(2);
  });

  it('carries at most SUBMIT_MANY_MAX jobs, and inputs of at most 256 KB, in one command', async () => {
    const { bus, sent } = fakeBus();
    const batcher = new SubmitBatcher(bus);
    void batcher.submit('ep', ALICE, item(0), 10);
    const count = SUBMIT_MANY_MAX + 5;
    for (let n = 1; n <= count; n++) void batcher.submit('ep', ALICE, item(n), 10);
    sent[0].answer({ id: 'job-0', status: 'IN_QUEUE' });
    await tick();
    expect(sent[1].payload.jobs).toHaveLength(SUBMIT_MANY_MAX);
    sent[1].answer(accepted(...sent[1].payload.jobs!));
    await tick();
    expect(sent[2].payload.jobs).toHaveLength(5);
    sent[2].answer(accepted(...sent[2].payload.jobs!));
    await tick();

    // By size: 16 KB inputs, sixteen to a command (the seventeenth would pass 256 KB).
    void batcher.submit('ep', ALICE, item(1000), 16 * 1024);
    for (let n = 1; n <= 20; n++) void batcher.submit('ep', ALICE, item(1000 + n), 16 * 1024);
    sent[3].answer({ id: 'job', status: 'IN_QUEUE' });
    await tick();
    expect(sent[4].payload.jobs).toHaveLength(16);
    sent[4].answer(accepted(...sent[4].payload.jobs!));
    await tick();
    expect(sent[5].payload.jobs).toHaveLength(4);
  });
});
