import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { PodLogBatch } from '@app/contracts';
import { BatchedRunLog, DEFAULT_BATCHING, type BatchingOptions } from './batched-run-log.js';

describe('BatchedRunLog', () => {
  let batches: PodLogBatch[];
  let release: (() => void)[];
  /** Publishes answer only when released, as a slow bus would. */
  let held: boolean;

  function log(options: Partial<BatchingOptions> = {}): BatchedRunLog {
    return new BatchedRunLog(
      {
        podId: 'pod-1',
        generation: 3,
        redact: (line) => line.split('s3cret').join('[redacted]'),
        publish: (batch) => {
          batches.push(batch);
          return held ? new Promise((resolve) => release.push(resolve)) : Promise.resolve();
        },
      },
      { ...DEFAULT_BATCHING, ...options },
      () => new Date('2026-11-24T00:00:00.000Z'),
    );
  }
  const lines = () => batches.flatMap((b) => b.lines.map((l) => `${l.stream}:${l.line}`));

  beforeEach(() => {
    jest.useFakeTimers();
    batches = [];
    release = [];
    held = false;
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('splits chunks into lines per stream and redacts whole lines, a secret cut between two chunks included', async () => {
    const run = log();
    run.write('stdout', 'one\ntwo key=s3');
    run.write('stderr', 'err\r\n');
    run.write('stdout', 'cret\nunfinished');
    expect(batches).toEqual([]); // nothing published before the flush delay
    await run.close();
    expect(lines()).toEqual(['stdout:one', 'stderr:err', 'stdout:two key=[redacted]', 'stdout:unfinished']);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toMatchObject({ podId: 'pod-1', generation: 3 });
  });

  it('publishes one batch per flush delay, not one per line, and a full batch at once', async () => {
    const run = log({ flushMs: 200, maxBatchBytes: 1000 });
    for (let i = 0; i < 5; i++) run.write('stdout', `line ${i}\n`);
    await jest.advanceTimersByTimeAsync(199);
    expect(batches).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(batches).toHaveLength(1);
    expect(batches[0].lines).toHaveLength(5);
    run.write('stdout', `${'x'.repeat(1000)}\n`);
    await jest.advanceTimersByTimeAsync(0);
    expect(batches).toHaveLength(2);
  });

  it('cuts a line past the longest kept, after redacting it', async () => {
    const run = log({ maxLineChars: 10 });
    run.write('stdout', 's3cret-and-more-text\n');
    await run.close();
    expect(lines()).toEqual(['stdout:[redacted]…']);
  });

  it('drops lines while too many batches wait for the bus, then says how many', async () => {
    held = true;
    const run = log({ maxBatchBytes: 1, maxInFlight: 2 });
    for (let i = 0; i < 5; i++) run.write('stdout', `line ${i}\n`);
    await jest.advanceTimersByTimeAsync(0);
    expect(batches).toHaveLength(1); // publishes go one after the other
    held = false;
    release.shift()?.();
    await jest.advanceTimersByTimeAsync(0);
    expect(batches).toHaveLength(2);
    run.write('stdout', 'after\n');
    await run.close();
    expect(lines()).toEqual([
      'stdout:line 0',
      'stdout:line 1',
      'system:3 line(s) dropped: the container printed faster than logs are shipped',
      'stdout:after',
    ]);
  });

  it('ignores what comes after close', async () => {
    const run = log();
    run.system('the process exited with code 0');
    await run.close();
    run.write('stdout', 'late\n');
    await run.close();
    expect(lines()).toEqual(['system:the process exited with code 0']);
  });
});
