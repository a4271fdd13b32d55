import { describe, expect, it } from '@jest/globals';
import {
  Subjects,
  hintSubject,
  type JobChangedEvent,
  type JobChangedManyEvent,
  type JobQueuedManyEvent,
} from '@app/contracts';
import type { NatsClient } from '@app/messaging';
import { JobSignals } from './job-signals.js';

/** Hands the subscription of `subject` a message; true when its body was read. */
type Deliver = (subject: string, eventId: string, payload: unknown, headers?: Map<string, string>) => boolean;
type Msg = { headers?: { get(name: string): string }; json(): unknown };

/** JobSignals on a stand-in for core NATS: `deliver` hands a subscription a message as the client would. */
function signalsOnFakeNats(): { signals: JobSignals; deliver: Deliver } {
  const callbacks = new Map<string, (error: Error | null, msg: Msg) => void>();
  const nats = {
    subject: (unprefixed: string) => `p.${unprefixed}`,
    nc: {
      subscribe: (
        subject: string,
        opts: { callback: (error: Error | null, msg: { json(): unknown }) => void },
      ) => {
        callbacks.set(subject, opts.callback);
        return { unsubscribe: () => callbacks.delete(subject) };
      },
    },
  } as unknown as NatsClient;
  const signals = new JobSignals(nats);
  signals.onModuleInit();
  const deliver: Deliver = (subject, eventId, payload, headers) => {
    const callback = callbacks.get(`p.${subject}`);
    if (!callback) throw new Error(`nobody subscribed to ${subject}`);
    let read = false;
    const msg: Msg = {
      json: () => {
        read = true;
        return { eventId, payload };
      },
    };
    if (headers) msg.headers = { get: (name) => headers.get(name) ?? '' };
    callback(null, msg);
    return read;
  };
  return { signals, deliver };
}

const offer = (workerId: string) => ({ workerId, batchSize: 1, requestedAt: '2026-12-01T00:00:00.000Z' });
const never = new AbortController().signal;
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('JobSignals: the two copies of an event', () => {
  it('drops the relayed copy of an event seen as a hint by its Nats-Msg-Id header, without reading its body', () => {
    const { signals, deliver } = signalsOnFakeNats();
    const seen: string[] = [];
    signals.onJobEvent((jobId) => seen.push(jobId));
    const event: JobChangedEvent = { endpointId: 'ep', jobId: 'job-1', status: 'COMPLETED' };
    expect(deliver(hintSubject(Subjects.job.changed), 'evt-1', event)).toBe(true);
    // As the relay publishes it: the event id as Nats-Msg-Id.
    expect(deliver(Subjects.job.changed, 'evt-1', event, new Map([['Nats-Msg-Id', 'evt-1']]))).toBe(false);
    expect(seen).toEqual(['job-1']);
    // A relayed event not seen before (its hint was lost) is read and handled.
    const lost = { ...event, jobId: 'job-2' };
    expect(deliver(Subjects.job.changed, 'evt-2', lost, new Map([['Nats-Msg-Id', 'evt-2']]))).toBe(true);
    expect(seen).toEqual(['job-1', 'job-2']);
    // And its copy, should the hint come late, is dropped by its event id once read.
    expect(deliver(hintSubject(Subjects.job.changed), 'evt-2', lost)).toBe(true);
    expect(seen).toEqual(['job-1', 'job-2']);
  });
});

describe('JobSignals: events that carry many jobs', () => {
  it('a queued-many wakes one waiting poll of its endpoint per job, as that many queued events would', async () => {
    const { signals, deliver } = signalsOnFakeNats();
    const queuedAt: string[] = [];
    signals.onQueued((endpointId) => queuedAt.push(endpointId));
    const polls = ['w1', 'w2', 'w3'].map((w) => signals.watchQueue('ep', offer(w)));
    const woke: string[] = [];
    const waits = polls.map((poll, n) => poll.wait(60_000, never).then(() => woke.push(`w${n + 1}`)));
    await tick();
    const event: JobQueuedManyEvent = {
      jobs: [
        { endpointId: 'ep', jobId: 'job-1' },
        { endpointId: 'ep', jobId: 'job-2' },
      ],
    };
    deliver(hintSubject(Subjects.job.queuedMany), 'evt-1', event);
    // The relayed copy of the same event changes nothing.
    deliver(Subjects.job.queuedMany, 'evt-1', event);
    await tick();
    expect(woke.sort()).toEqual(['w1', 'w2']);
    expect(queuedAt).toEqual(['ep', 'ep']);
    polls[2].close();
    await Promise.all(waits.slice(0, 2));
    for (const poll of polls) poll.close();
  });

  it("a changed-many wakes each job's waiters and hands each job's change to the read model, in order", async () => {
    const { signals, deliver } = signalsOnFakeNats();
    const seen: [string, string | undefined][] = [];
    signals.onJobEvent((jobId, changed) => seen.push([jobId, changed?.status]));
    const watchers = ['job-1', 'job-2', 'job-3'].map((id) => signals.watchJob(id));
    let woken = 0;
    const waits = watchers.map((w) => w.wait(60_000, never).then(() => (woken += 1)));
    await tick();
    const change = (jobId: string, status: JobChangedEvent['status']): JobChangedEvent => ({
      endpointId: 'ep',
      jobId,
      status,
    });
    const event: JobChangedManyEvent = { jobs: [change('job-2', 'COMPLETED'), change('job-1', 'FAILED')] };
    deliver(Subjects.job.changedMany, 'evt-2', event);
    deliver(hintSubject(Subjects.job.changedMany), 'evt-2', event);
    await tick();
    expect(seen).toEqual([
      ['job-2', 'COMPLETED'],
      ['job-1', 'FAILED'],
    ]);
    expect(woken).toBe(2);
    await Promise.all(waits.slice(0, 2));
    for (const w of watchers) w.close();
  });
});
