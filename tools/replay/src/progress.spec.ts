import { describe, expect, it, jest } from '@jest/globals';
import { Progress } from './progress.js';

/** A stream that is not a terminal: progress comes as lines. */
function lines(): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = {
    isTTY: false,
    write: (text: string) => written.push(text),
  } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

describe('Progress', () => {
  it('prints the rate and the time left every 10 %', () => {
    jest.useFakeTimers({ now: 0 });
    const { stream, written } = lines();
    const progress = new Progress(1000, 'rebuild', stream);
    jest.setSystemTime(2000);
    progress.update(100, { applied: 100, skipped: 0, failed: 0 });
    jest.setSystemTime(2500);
    progress.update(150, { applied: 150, skipped: 0, failed: 0 }); // under 10 % more and under 10 s: quiet
    jest.setSystemTime(4000);
    progress.update(200, { applied: 190, skipped: 5, failed: 5 });
    expect(written).toEqual([
      'rebuild: 100/1000 (10%) applied 100 skipped 0 failed 0, 50 commands/s, eta 18 s\n',
      'rebuild: 200/1000 (20%) applied 190 skipped 5 failed 5, 50 commands/s, eta 16 s\n',
    ]);
    jest.useRealTimers();
  });

  it('stays quiet for fewer than 20 commands', () => {
    const { stream, written } = lines();
    new Progress(19, 'replay', stream).update(19, { applied: 19, skipped: 0, failed: 0 });
    expect(written).toEqual([]);
  });
});
