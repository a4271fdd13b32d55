import { describe, expect, it } from '@jest/globals';
import type { NatsClient } from '@app/messaging';
import { JobSignals } from './job-signals.js';

const offer = (workerId: string) => ({ workerId, batchSize: 2, requestedAt: '2026-11-28T00:00:00.000Z' });
const never = new AbortController().signal;

/** Lets a started wait reach its await (the watcher is `waiting` only from then on). */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('JobSignals.claimTake: a submit carries the take of a poll waiting on this gateway', () => {
  it('claims only a poll that waits, one submit each, longest waiting first', async () => {
    const signals = new JobSignals({} as NatsClient);
    expect(signals.claimTake('ep')).toBeNull();
    const first = signals.watchQueue('ep', offer('w1'));
    const second = signals.watchQueue('ep', offer('w2'));
    // Registered but still asking the broker: not waiting, not claimable.
    expect(signals.claimTake('ep')).toBeNull();
    const waits = [first.wait(60_000, never), second.wait(60_000, never)];
    await tick();
    const claimed = signals.claimTake('ep');
    expect(claimed?.offer).toEqual(offer('w1'));
    expect(first.claimed).toBe(true);
    expect(signals.claimTake('ep')?.offer).toEqual(offer('w2'));
    expect(signals.claimTake('ep')).toBeNull();
    expect(signals.claimTake('other endpoint')).toBeNull();
    // The claim ends the waits at once.
    await Promise.all(waits);
    first.close();
    second.close();
  });

  it('hands the poll what the take leased, or null when the submit failed; then it may be claimed again', async () => {
    const signals = new JobSignals({} as NatsClient);
    const poll = signals.watchQueue('ep', offer('w1'));
    const wait = poll.wait(60_000, never);
    await tick();
    signals.claimTake('ep')!.deliver([{ id: 'job-1', input: { n: 1 } }]);
    await wait;
    await expect(poll.takeClaimed()).resolves.toEqual([{ id: 'job-1', input: { n: 1 } }]);
    expect(poll.claimed).toBe(false);
    await expect(poll.takeClaimed()).resolves.toBeNull();

    const again = poll.wait(60_000, never);
    await tick();
    signals.claimTake('ep')!.release();
    await again;
    await expect(poll.takeClaimed()).resolves.toBeNull();
    expect(poll.claimed).toBe(false);
    poll.close();
    expect(signals.claimTake('ep')).toBeNull();
  });

  it('a job queued while a poll is claimed wakes another waiting poll, not the claimed one', async () => {
    const signals = new JobSignals({} as NatsClient);
    const claimedPoll = signals.watchQueue('ep', offer('w1'));
    const idlePoll = signals.watchQueue('ep', offer('w2'));
    let idleWoke = false;
    const waits = [
      claimedPoll.wait(60_000, never),
      idlePoll.wait(60_000, never).then(() => (idleWoke = true)),
    ];
    await tick();
    signals.claimTake('ep');
    // The queued signal of another submit: as JobSignals' listener handles it.
    (signals as unknown as { wakeQueue(endpointId: string): void }).wakeQueue('ep');
    await tick();
    expect(idleWoke).toBe(true);
    await Promise.all(waits);
  });
});
