import { describe, expect, it } from '@jest/globals';
import { LaneScheduler } from './lane-scheduler.js';

function deferred() {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('LaneScheduler', () => {
  it('applies a lone item at once, and what piles up meanwhile as one batch, in push order', async () => {
    const batches: string[][] = [];
    const gate = deferred();
    const lanes = new LaneScheduler<string>(1, 64, async (batch) => {
      batches.push(batch);
      if (batches.length === 1) await gate.promise;
    });
    lanes.push('k', 'a');
    await Promise.resolve();
    await Promise.resolve();
    lanes.push('k', 'b');
    lanes.push('k', 'c');
    lanes.push('k', 'd');
    expect(lanes.size).toBe(4);
    gate.release();
    await lanes.drained();
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    expect(lanes.size).toBe(0);
  });

  it('cuts batches at batchMax', async () => {
    const batches: number[][] = [];
    const lanes = new LaneScheduler<number>(1, 3, (batch) => {
      batches.push(batch);
      return Promise.resolve();
    });
    for (let i = 0; i < 7; i++) lanes.push(null, i);
    await lanes.drained();
    expect(batches).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('keeps one key in one lane, in order, while other keys run side by side', async () => {
    const lanes = new LaneScheduler<string>(8, 2, () => Promise.resolve());
    const keys = Array.from({ length: 200 }, (_, i) => `job-${i}`);
    for (const key of keys) expect(lanes.laneOf(key)).toBe(lanes.laneOf(key));
    expect(new Set(keys.map((k) => lanes.laneOf(k))).size).toBe(8);
    expect(lanes.laneOf(null)).toBe(0);

    const seen: string[] = [];
    let inFlight = 0;
    let most = 0;
    const busy = new LaneScheduler<string>(4, 1, async (batch) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(...batch);
      inFlight--;
    });
    const order = ['a1', 'b1', 'a2', 'c1', 'b2', 'a3'];
    for (const item of order) busy.push(item[0], item);
    await busy.drained();
    // Per key, the push order holds; across keys the lanes overlapped.
    for (const key of ['a', 'b', 'c']) {
      expect(seen.filter((s) => s[0] === key)).toEqual(order.filter((s) => s[0] === key));
    }
    expect(most).toBeGreaterThan(1);
  });

  it('lets the pusher wait for room, and goes on after a batch that threw', async () => {
    const gate = deferred();
    const applied: number[] = [];
    const failed: number[][] = [];
    const lanes = new LaneScheduler<number>(
      1,
      2,
      async (batch) => {
        if (batch[0] === 0) await gate.promise;
        if (batch[0] === 2) throw new Error('boom');
        applied.push(...batch);
      },
      (_error, batch) => failed.push(batch),
    );
    for (let i = 0; i < 5; i++) lanes.push(null, i);
    let roomy = false;
    const room = lanes.roomFor(3).then(() => (roomy = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(roomy).toBe(false);
    gate.release();
    await room;
    await lanes.drained();
    expect(applied).toEqual([0, 1, 4]);
    expect(failed).toEqual([[2, 3]]);
    expect(lanes.size).toBe(0);
  });
});
