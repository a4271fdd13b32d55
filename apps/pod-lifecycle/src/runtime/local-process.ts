import type { Logger } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PodStatus, type ObservedStatus } from '@app/contracts';
import type { LbWorkerAddress, RunLog } from './runtime-driver.js';

/** One run of a pod as a child process of the local runtime (local.driver.ts). */
export interface LocalProcess {
  generation: number;
  child: ChildProcess | null;
  /** Set when the process has ended (by itself or because we stopped it). */
  exited: Promise<void>;
  /** Set when its output pipes are read to the end and its log closed. */
  drained: Promise<void>;
  done: boolean;
  /** We are stopping it: its exit is not an observation. */
  stopping: boolean;
  /** Set for a load-balancing worker: where it answers. */
  lb: LbWorkerAddress | null;
}

/** What a process's end says about its pod. */
export interface ExitObservation {
  status: ObservedStatus;
  exitCode?: number;
  reason: string;
}

/** What starting a pod's process needs (LocalDriver supplies it). */
export interface LocalProcessStart {
  podId: string;
  generation: number;
  argv: string[];
  /** The pod's container disk: the process's working directory and HOME. */
  dir: string;
  /** Its whole environment (nothing of pod-lifecycle's own reaches it). */
  env: Record<string, string>;
  /** Where `<podId>.pid` and `<podId>.log` live. */
  podsDir: string;
  lb: LbWorkerAddress | null;
  log: RunLog;
  /** How long it must stay up before the pod is RUNNING. */
  readyMs: number;
  /** An observation of the pod, unless we are the ones stopping it. */
  observe(status: ObservedStatus, extra?: { reason?: string; exitCode?: number }): void;
  logger: Logger;
}

const KILL_GRACE_MS = 3000;
/** How long a stopped process's output may take to be read to the end. */
const DRAIN_MS = 1000;

/** Exit code 0 → EXITED; any other end (a code, a signal) → ERROR. */
export function exitObservation(code: number | null, signal: NodeJS.Signals | null): ExitObservation {
  if (code === 0) return { status: PodStatus.Exited, exitCode: 0, reason: 'the process exited with code 0' };
  if (code !== null) {
    return { status: PodStatus.Error, exitCode: code, reason: `the process exited with code ${code}` };
  }
  return { status: PodStatus.Error, reason: `the process was killed by ${signal ?? 'a signal'}` };
}

/**
 * Starts the process in its own process group, its output teed to the run's log and to `<podsDir>/<podId>.log`,
 * its pid in `<podsDir>/<podId>.pid` while it runs; reports RUNNING after `readyMs` and how it ended.
 */
export function startLocalProcess(start: LocalProcessStart): LocalProcess {
  const { podId, argv, dir, podsDir } = start;
  const proc: LocalProcess = {
    generation: start.generation,
    child: null,
    exited: Promise.resolve(),
    drained: Promise.resolve(),
    done: false,
    stopping: false,
    lb: start.lb,
  };
  // Pipes rather than the file as the child's stdout: the lines must reach the log sink. A child outliving
  // pod-lifecycle loses its pipes, but it would be killed as a leftover at the next start anyway.
  const child = spawn(argv[0], argv.slice(1), {
    cwd: dir,
    env: start.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const closeLog = teeOutput(podsDir, podId, child, start.log, start.logger);
  proc.child = child;
  proc.exited = new Promise<void>((settle) => {
    child.once('error', (error) => {
      proc.done = true;
      const reason = `the process could not start: ${error.message}`;
      closeLog(reason);
      if (!proc.stopping) start.observe(PodStatus.Error, { reason });
      settle();
    });
    child.once('exit', (code, signal) => {
      proc.done = true;
      rmSync(join(podsDir, `${podId}.pid`), { force: true });
      if (!proc.stopping) {
        const { status, ...extra } = exitObservation(code, signal);
        start.observe(status, extra);
      }
      settle();
    });
  });
  // After 'exit', once the pipes are drained: the line saying how it ended comes after everything it printed.
  proc.drained = new Promise<void>((settle) =>
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      closeLog(
        code !== null
          ? `the process exited with code ${code}`
          : `the process was killed by ${signal ?? 'a signal'}`,
      );
      settle();
    }),
  );
  if (child.pid !== undefined) writeFileSync(join(podsDir, `${podId}.pid`), String(child.pid));
  const ready = setTimeout(() => {
    if (!proc.done && !proc.stopping) start.observe(PodStatus.Running);
  }, start.readyMs);
  ready.unref();
  start.logger.log(
    `pod ${podId} run ${start.generation}: started ${argv[0]} (pid ${child.pid ?? '?'}) in ${dir}`,
  );
  return proc;
}

/** Stops a process group: SIGTERM, SIGKILL after a grace period; resolves once its last lines are logged. */
export async function stopLocalProcess(proc: LocalProcess): Promise<void> {
  if (proc.done || !proc.child?.pid) return;
  proc.stopping = true;
  const pid = proc.child.pid;
  signalGroup(pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  await proc.exited;
  clearTimeout(timer);
  signalGroup(pid, 'SIGKILL'); // whatever the leader left behind in its group
  // Its last lines reach the log before the pod is said stopped (or terminated); a process that left the group
  // and keeps the pipes open does not hold this up for long.
  await Promise.race([proc.drained, new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref())]);
}

/**
 * A process left by an earlier pod-lifecycle (killed without a chance to stop its pods): killed if its pid
 * file still names a live process working in the pod's directory (`dir`).
 */
export function killLeftover(podsDir: string, podId: string, dir: string, logger: Logger): void {
  const pidFile = join(podsDir, `${podId}.pid`);
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    if (readlinkSync(`/proc/${pid}/cwd`) !== dir) return;
  } catch {
    return; // gone (or not inspectable): nothing of ours to kill
  }
  logger.warn(`pod ${podId}: killing process ${pid} left by an earlier run of pod-lifecycle`);
  signalGroup(pid, 'SIGKILL');
}

/** Sends the child's output to the run's log and appends it to the pod's log file; returns what ends both. */
function teeOutput(
  podsDir: string,
  podId: string,
  child: ChildProcess,
  log: RunLog,
  logger: Logger,
): (lastLine: string) => void {
  const file = createWriteStream(join(podsDir, `${podId}.log`), { flags: 'a' });
  file.on('error', (error) => logger.warn(`pod ${podId}: log file: ${error.message}`));
  for (const stream of ['stdout', 'stderr'] as const) {
    const output = child[stream];
    output?.setEncoding('utf8'); // whole characters per chunk, whatever the pipe cuts
    output?.on('data', (chunk: string) => {
      file.write(chunk);
      log.write(stream, chunk);
    });
  }
  let ended = false;
  return (lastLine) => {
    if (ended) return;
    ended = true;
    log.system(lastLine);
    void log.close();
    file.end();
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
