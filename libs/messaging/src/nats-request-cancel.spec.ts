import { describe, expect, it } from '@jest/globals';
import { RequestError, RequestOne } from '@nats-io/nats-core/internal';
import { CANCELLED, installRequestCancelFix } from './nats-request-cancel.js';

/** A mux that records the requests cancelled through it (RequestOne's only use of it on cancel). */
function request(): { r: RequestOne; cancelled: unknown[] } {
  const cancelled: unknown[] = [];
  const mux = { cancel: (r: unknown) => cancelled.push(r) };
  // The request's own timer: long enough never to fire here, cancelled by resolver/cancel.
  const r = new RequestOne(mux as never, 'subject', { timeout: 60_000 }, false);
  return { r, cancelled };
}

describe('RequestOne.cancel with the fix installed', () => {
  installRequestCancelFix();
  installRequestCancelFix(); // idempotent: a second install does not wrap the wrapper

  it('answers a request with its reply, then cancels it with the shared rejection (no new Error)', async () => {
    const { r, cancelled } = request();
    const reply = { data: new Uint8Array([1]) };
    r.resolver(null, reply as never);
    await expect(r.deferred).resolves.toBe(reply);
    expect(cancelled).toEqual([r]);
  });

  it('rejects an unanswered request cancelled without an error with the shared RequestError', async () => {
    const { r, cancelled } = request();
    r.cancel();
    await expect(r.deferred).rejects.toBe(CANCELLED);
    expect(CANCELLED).toBeInstanceOf(RequestError);
    expect(CANCELLED.message).toBe('cancelled');
    expect(cancelled).toEqual([r]);
  });

  it('passes a cancel with an error on untouched', async () => {
    const { r, cancelled } = request();
    const error = new Error('connection closed');
    r.cancel(error);
    await expect(r.deferred).rejects.toBe(error);
    expect(cancelled).toEqual([r]);
  });

  it('still turns a failed reply into a RequestError carrying the cause', async () => {
    const { r } = request();
    const cause = new Error('no responders');
    r.resolver(cause, {} as never);
    await expect(r.deferred).rejects.toMatchObject({ message: 'no responders', cause });
  });
});
