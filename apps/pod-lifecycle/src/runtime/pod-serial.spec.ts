import { describe, expect, it } from '@jest/globals';
import { PodSerial } from './pod-serial.js';

/** A promise and what settles it. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('PodSerial', () => {
  it("runs a pod's operations one after the other, and other pods' beside them", async () => {
    const serial = new PodSerial();
    const order: string[] = [];
    const first = gate();
    const a1 = serial.run('a', async () => {
      order.push('a1 start');
      await first.opened;
      order.push('a1 end');
    });
    const a2 = serial.run('a', () => {
      order.push('a2');
      return Promise.resolve();
    });
    const b1 = serial.run('b', () => {
      order.push('b1');
      return Promise.resolve();
    });
    await b1;
    expect(order).toEqual(['a1 start', 'b1']);
    expect(serial.busy('a')).toBe(true);
    expect(serial.podIds()).toContain('a');
    first.open();
    await Promise.all([a1, a2]);
    expect(order).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('goes on after a failed operation, which its caller alone hears of', async () => {
    const serial = new PodSerial();
    const failed = serial.run('a', () => Promise.reject(new Error('boom')));
    let ran = false;
    const next = serial.run('a', () => {
      ran = true;
      return Promise.resolve();
    });
    await expect(failed).rejects.toThrow('boom');
    await next;
    expect(ran).toBe(true);
  });

  it('forgets a pod once its last operation has settled', async () => {
    const serial = new PodSerial();
    await serial.run('a', () => Promise.resolve());
    await Promise.resolve();
    expect(serial.busy('a')).toBe(false);
    expect(serial.podIds()).toEqual([]);
  });
});
