// Child processes of the benchmark: the apps, the baselines' servers and the no-op workers. Each runs in its own
// process group (a terminal Ctrl-C reaches only the harness, which stops them in order), keeps its last lines of
// output for error messages, and is SIGKILLed when the harness exits without having stopped it.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { ROOT } from '../../scripts/lib/infra.mjs';

const LAST_LINES = Number(process.env.BENCH_LAST_LINES || 40);
const STOP_GRACE_MS = 10_000;
const live = new Set();

process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** The variables a child gets from the harness: enough to run, none of the harness's own configuration. */
export function baseEnv() {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(
    keep.filter((name) => process.env[name]).map((name) => [name, process.env[name]]),
  );
}

/**
 * Starts `node <script> ...args` in the repo root. Returns a handle: `startedAt` (performance.now() just
 * before the spawn), `output()`, `exited` (resolves `{ code, signal }`), `stop()` (SIGTERM, SIGKILL after 10 s).
 */
export function startNode(name, script, { args = [], env = {}, nodeArgs = [] } = {}) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  const lines = [];
  const keep = (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      lines.push(line);
      if (lines.length > LAST_LINES) lines.shift();
    }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      live.delete(child);
      lines.push(`could not start: ${error.message}`);
      resolve({ code: null, signal: null });
    });
  });
  let state = 'running';
  void exited.then(() => (state = 'exited'));
  return {
    name,
    pid: child.pid,
    startedAt,
    exited,
    isRunning: () => state === 'running',
    output: () => lines.join('\n') || '(no output)',
    async stop() {
      if (state !== 'running') return exited;
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** `count` distinct free ports of 127.0.0.1. */
export async function freePorts(count) {
  const servers = [];
  try {
    const ports = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      ports.push(server.address().port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/**
 * Polls `GET <url>/readyz` every `intervalMs` until it answers 200; resolves the performance.now() of that answer.
 * Throws with the process's last output when it exits first or `timeoutMs` passes.
 */
export async function untilReady(proc, url, { timeoutMs = 60_000, intervalMs = 20 } = {}) {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer yet';
  while (performance.now() < deadline) {
    if (!proc.isRunning()) {
      const { code, signal } = await proc.exited;
      throw new Error(`${proc.name} exited (${signal ?? code}) before it was ready:\n${proc.output()}`);
    }
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now();
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error.cause?.code ?? error.message;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`${proc.name} was not ready within ${timeoutMs / 1000} s (${last}):\n${proc.output()}`);
}

/** Waits until the process has printed a line containing `text` (e.g. a baseline worker's "ready"). */
export async function untilOutput(proc, text, { timeoutMs = 30_000 } = {}) {
  const deadline = performance.now() + timeoutMs;
  while (!proc.output().includes(text)) {
    if (!proc.isRunning()) {
      throw new Error(`${proc.name} exited before printing "${text}":\n${proc.output()}`);
    }
    if (performance.now() > deadline) {
      throw new Error(`${proc.name} did not print "${text}" within ${timeoutMs / 1000} s:\n${proc.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resets the kernel's peak-RSS mark of a process (writes 5 to /proc/<pid>/clear_refs, Linux ≥ 4.0): the next
 * `peakRssMb` reads the peak since this call. False when the kernel does not allow it (the peak is then since start).
 */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The peak resident set (VmHWM of /proc/<pid>/status) of a running process, in MiB; NaN when unreadable. */
export function peakRssMb(pid) {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? NaN : Number(kb) / 1024;
  } catch {
    return NaN;
  }
}
