import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PodStatus, type ObservedStatus } from '@app/contracts';
import { exitObservation, startLocalProcess, stopLocalProcess } from './local-process.js';
import type { RunLog } from './runtime-driver.js';

/** A run log that keeps what it was given. */
function memoryLog() {
  const lines: string[] = [];
  const log: RunLog = {
    write: (stream, chunk) => lines.push(`${stream}:${chunk}`),
    system: (line) => lines.push(`system:${line}`),
    close: () => Promise.resolve(),
  };
  return { log, lines };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function started(script: string, readyMs = 60_000) {
  const podsDir = mkdtempSync(join(tmpdir(), 'local-process-'));
  const seen: { status: ObservedStatus; extra?: { reason?: string; exitCode?: number } }[] = [];
  const { log, lines } = memoryLog();
  const proc = startLocalProcess({
    podId: 'pod-1',
    generation: 1,
    argv: [process.execPath, '-e', script],
    dir: podsDir,
    env: { PATH: process.env.PATH ?? '' },
    podsDir,
    lb: null,
    log,
    readyMs,
    observe: (status, extra) => seen.push({ status, extra }),
    logger: new Logger('local-process.spec'),
  });
  return { proc, podsDir, seen, lines };
}

describe('exitObservation', () => {
  it.each([
    [0, null, { status: PodStatus.Exited, exitCode: 0, reason: 'the process exited with code 0' }],
    [3, null, { status: PodStatus.Error, exitCode: 3, reason: 'the process exited with code 3' }],
    [null, 'SIGKILL', { status: PodStatus.Error, reason: 'the process was killed by SIGKILL' }],
    [null, null, { status: PodStatus.Error, reason: 'the process was killed by a signal' }],
  ] as const)('code %s, signal %s', (code, signal, expected) => {
    expect(exitObservation(code, signal)).toEqual(expected);
  });
});

describe('startLocalProcess', () => {
  it('tees the output, reports how it ended after its last line, and removes its pid file', async () => {
    const { proc, podsDir, seen, lines } = started(
      "console.log('hello'); console.error('oops'); process.exit(3)",
    );
    expect(readFileSync(join(podsDir, 'pod-1.pid'), 'utf8')).toBe(String(proc.child!.pid));
    await proc.exited;
    await proc.drained;
    expect(seen).toEqual([
      { status: PodStatus.Error, extra: { exitCode: 3, reason: 'the process exited with code 3' } },
    ]);
    expect(lines).toEqual(
      expect.arrayContaining(['stdout:hello\n', 'stderr:oops\n', 'system:the process exited with code 3']),
    );
    expect(lines.at(-1)).toBe('system:the process exited with code 3');
    // The file stream ends on its own after the log's last line.
    const logFile = join(podsDir, 'pod-1.log');
    await until(() => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('hello\n'));
    expect(existsSync(join(podsDir, 'pod-1.pid'))).toBe(false);
  });

  it('reports RUNNING once it has stayed up, and nothing of an end it was stopped into', async () => {
    const { proc, seen, lines } = started("console.log('up'); setInterval(() => {}, 1000)", 50);
    await until(() => lines.includes('stdout:up\n') && seen.length > 0);
    expect(seen).toEqual([{ status: PodStatus.Running, extra: undefined }]);
    await stopLocalProcess(proc);
    expect(proc.done).toBe(true);
    expect(seen).toHaveLength(1);
    expect(lines).toContain('stdout:up\n');
    expect(lines.at(-1)).toBe('system:the process was killed by SIGTERM');
  });

  it('reports a command that cannot start as an ERROR', async () => {
    const podsDir = mkdtempSync(join(tmpdir(), 'local-process-'));
    const seen: ObservedStatus[] = [];
    const { log, lines } = memoryLog();
    const proc = startLocalProcess({
      podId: 'pod-2',
      generation: 1,
      argv: [join(podsDir, 'no-such-binary')],
      dir: podsDir,
      env: {},
      podsDir,
      lb: null,
      log,
      readyMs: 60_000,
      observe: (status) => seen.push(status),
      logger: new Logger('local-process.spec'),
    });
    await proc.exited;
    expect(seen).toEqual([PodStatus.Error]);
    expect(lines[0]).toMatch(/^system:the process could not start: .*ENOENT/);
  });
});
