import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Actor, TakenJob } from '@app/contracts';
import type { CommandBus, NatsClient } from '@app/messaging';
import type { EndpointAccess } from '../jobs/endpoint-access.js';
import type { GatewayPayloads } from '../jobs/gateway-payloads.js';
import { JobSignals } from '../jobs/job-signals.js';
import { JobsEdgeConfig } from '../jobs/jobs-edge.config.js';
import { DoneBatcher } from './done-batcher.js';
import { EmptyQueues } from './empty-queues.js';
import { WorkersService } from './workers.service.js';

const ACTOR: Actor = { userId: 'user-1', kind: 'user' };
const JOB: TakenJob = { id: 'job-1', input: { n: 1 } };
const HAND_OUT_MS = 1000;

/** Moves the gateway's clock on by `ms` (the service reads Date.now). */
function advanceClock(ms: number): void {
  const now = Date.now() + ms;
  jest.spyOn(Date, 'now').mockReturnValue(now);
}

/**
 * A WorkersService whose broker answers the poll's takes with `answers`, one each, in order (each run when its take
 * is sent); the poll's request is aborted with the last answer, so the poll ends at its next wait.
 */
function service(...answers: (() => TakenJob[])[]) {
  const poll = new AbortController();
  const signals = new JobSignals({} as NatsClient);
  let asked = 0;
  const commands = {
    execute: jest.fn(async (..._call: unknown[]) => {
      // The broker's answer comes on a later turn of the event loop, as over NATS.
      await new Promise((resolve) => setImmediate(resolve));
      const jobs = answers[asked++]();
      if (asked === answers.length) poll.abort();
      return { jobs };
    }),
  };
  const config = Object.assign(new JobsEdgeConfig(), { JOB_TAKE_HAND_OUT_MS: HAND_OUT_MS });
  const workers = new WorkersService(
    commands as unknown as CommandBus,
    { queueEndpoint: () => Promise.resolve({}) } as unknown as EndpointAccess,
    { take: <T>(value: T) => Promise.resolve(value) } as unknown as GatewayPayloads,
    signals,
    new EmptyQueues(signals),
    new DoneBatcher(commands as unknown as CommandBus, config),
    config,
  );
  const take = () => workers.take('ep', 'worker-1', 1, undefined, ACTOR, poll.signal);
  return { take, commands, signals, poll };
}

describe('WorkersService.take: a take answered too late is not handed out (JOB_TAKE_HAND_OUT_MS)', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('hands out what a take leased when the answer comes in time', async () => {
    const { take, commands } = service(() => {
      advanceClock(HAND_OUT_MS - 200);
      return [JOB];
    });
    await expect(take()).resolves.toEqual([JOB]);
    expect(commands.execute).toHaveBeenCalledWith(
      'worker.cmd.take',
      expect.objectContaining({ endpointId: 'ep', workerId: 'worker-1', batchSize: 1 }),
      ACTOR,
      { timeoutMs: HAND_OUT_MS },
    );
  });

  it('keeps the jobs of an answer that came after JOB_TAKE_HAND_OUT_MS from the worker', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { take } = service(() => {
      advanceClock(HAND_OUT_MS + 500);
      return [JOB];
    });
    await expect(take()).resolves.toEqual([]);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/job-1 not handed out/));
  });

  it.each([
    { name: 'in time', afterMs: HAND_OUT_MS - 200, handedOut: [JOB] },
    { name: 'too late', afterMs: HAND_OUT_MS + 500, handedOut: [] },
  ])('hands a poll what a submit leased for it only if the submit answered in time ($name)', async (c) => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { take, signals, poll } = service(
      () => [],
      () => [],
    );
    const polled = take();
    // The poll's first take found nothing and it waits: a submit claims it, and answers `afterMs` later.
    const claimed = await until(() => signals.claimTake('ep'));
    advanceClock(c.afterMs);
    claimed.deliver([JOB]);
    // The worker's request ends now: the poll answers what it was handed, or nothing.
    poll.abort();
    await expect(polled).resolves.toEqual(c.handedOut);
  });
});

/** Polls `probe` on the event loop until it answers something. */
async function until<T>(probe: () => T | null): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error('never');
}
