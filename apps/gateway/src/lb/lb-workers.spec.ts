import { describe, expect, it } from '@jest/globals';
import type { LbWorkerAnnouncement } from '@app/contracts';
import type { NatsClient } from '@app/messaging';
import { LbWorkers } from './lb-workers.js';

const NOW = 1_000_000;

function announcement(podId: string, overrides: Partial<LbWorkerAnnouncement> = {}): LbWorkerAnnouncement {
  return {
    endpointId: 'e',
    podId,
    url: `http://127.0.0.1/${podId}`,
    state: 'ready',
    validForMs: 3000,
    ...overrides,
  };
}

/** The registry without its subscription: announcements are handed to it directly. */
const registry = () => new LbWorkers(null as unknown as NatsClient);
const ids = (workers: LbWorkers, now = NOW) =>
  workers
    .ready('e', now)
    .map((w) => w.podId)
    .sort();

describe('LbWorkers', () => {
  it('only ready workers are in the rotation, with the latest state each', () => {
    const workers = registry();
    workers.announced(announcement('a'), NOW);
    workers.announced(announcement('b', { state: 'initializing' }), NOW);
    workers.announced(announcement('c', { state: 'unhealthy' }), NOW);
    workers.announced(announcement('d', { state: 'draining' }), NOW);
    workers.announced(announcement('other', { endpointId: 'f' }), NOW);
    expect(ids(workers)).toEqual(['a']);
    workers.announced(announcement('b'), NOW);
    workers.announced(announcement('a', { state: 'draining' }), NOW);
    expect(ids(workers)).toEqual(['b']);
  });

  it('an announcement not renewed within validForMs takes the worker out', () => {
    const workers = registry();
    workers.announced(announcement('a'), NOW);
    expect(ids(workers, NOW + 2999)).toEqual(['a']);
    expect(ids(workers, NOW + 3000)).toEqual([]);
  });

  it('a worker this replica could not reach is out until announced ready again', () => {
    const workers = registry();
    workers.announced(announcement('a'), NOW);
    workers.unreachable('e', 'a');
    expect(ids(workers)).toEqual([]);
    workers.announced(announcement('a'), NOW);
    expect(ids(workers)).toEqual(['a']);
  });

  it('ignores what is not an announcement', () => {
    const workers = registry();
    workers.announced({ podId: 'a' } as LbWorkerAnnouncement, NOW);
    workers.announced(announcement('b', { state: 'sleeping' as never }), NOW);
    expect(ids(workers)).toEqual([]);
  });

  it('a waiting request is woken by a ready announcement, not by another state', async () => {
    const workers = registry();
    const waiting = workers.waitForReady('e', 5000, new AbortController().signal);
    workers.announced(announcement('a', { state: 'initializing' }));
    workers.announced(announcement('x', { endpointId: 'f' }));
    workers.announced(announcement('a'));
    await expect(waiting).resolves.toBe(true);
  });

  it('a wait runs out, or ends when the client goes away', async () => {
    const workers = registry();
    await expect(workers.waitForReady('e', 20, new AbortController().signal)).resolves.toBe(false);
    const abort = new AbortController();
    const waiting = workers.waitForReady('e', 5000, abort.signal);
    abort.abort();
    await expect(waiting).resolves.toBe(false);
  });
});
