import { Logger } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { LB_WORKER_ENV, lbWorkerPorts, PodStatus, type ObservedStatus } from '@app/contracts';
import { LocalImageCatalog } from './local-image-catalog.js';
import {
  containerEnv,
  type LbWorkerAddress,
  type LogSink,
  type ObservationSink,
  type PodRun,
  type RunLog,
  type RuntimeDriver,
} from './runtime-driver.js';

export interface LocalDriverOptions {
  /** Root of the pods' working directories: `<podsDir>/<podId>/` is a pod's container disk. */
  podsDir: string;
  /** How long a process must stay up before the pod is reported RUNNING. */
  readyMs: number;
  /** PATH inside the pods (nothing else of pod-lifecycle's environment reaches them). */
  path: string;
  /** The Node.js binary, for catalog commands using `{node}`. */
  nodeBinary: string;
  /** What makes this the only local runtime on its database (local-runtime-lock.ts); let go at shutdown. */
  exclusive?: { stop(): Promise<void> };
}

interface LocalProcess {
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

const KILL_GRACE_MS = 3000;
/** How long a stopped process's output may take to be read to the end. */
const DRAIN_MS = 1000;

/**
 * The developer-machine runtime. A pod whose image is in the local image catalog runs as a real child process
 * (its own process group) with the pod's environment and nothing else, in `<LOCAL_PODS_DIR>/<podId>/` (its
 * container disk: kept by stop and start, wiped by reset, deleted by terminate); stdout/stderr go to the log
 * sink (served by the logs routes) and, unredacted, to `<LOCAL_PODS_DIR>/<podId>.log` on this machine. Exit code 0 → EXITED, any other end (a code, a signal) → ERROR. Images not in
 * the catalog are handed to the simulated driver.
 */
export class LocalDriver implements RuntimeDriver {
  readonly name = 'local';
  private readonly logger = new Logger('runtime:local');
  private readonly processes = new Map<string, LocalProcess>();
  private readonly locks = new Map<string, Promise<void>>();
  private readonly podsDir: string;

  constructor(
    private readonly options: LocalDriverOptions,
    private readonly catalog: LocalImageCatalog,
    private readonly simulated: RuntimeDriver,
    private readonly sink: ObservationSink,
    private readonly logs: LogSink,
  ) {
    this.podsDir = resolve(options.podsDir);
    mkdirSync(this.podsDir, { recursive: true });
  }

  ensureRunning(run: PodRun): Promise<void> {
    const image = this.catalog.lookup(run.image);
    if (!image) return this.simulated.ensureRunning(run);
    return this.serialised(run.podId, async () => {
      const current = this.processes.get(run.podId);
      if (current?.generation === run.generation) return; // running, or ended and reported
      if (current) await this.kill(current);
      else this.killLeftover(run.podId);
      this.prepareDisk(run);
      if (run.status === PodStatus.Provisioning) this.report(run, PodStatus.Starting);
      const lb = await this.lbPorts(run);
      this.spawn(run, LocalImageCatalog.argv(image, run.args, this.options.nodeBinary), lb);
    });
  }

  async stop(podId: string): Promise<void> {
    await this.simulated.stop(podId);
    await this.serialised(podId, async () => {
      const current = this.processes.get(podId);
      if (current) await this.kill(current);
      else this.killLeftover(podId);
    });
  }

  async remove(podId: string): Promise<void> {
    await this.stop(podId);
    await this.serialised(podId, () => {
      this.processes.delete(podId);
      for (const path of [this.workdir(podId), ...this.sidecars(podId)])
        rmSync(path, { recursive: true, force: true });
      return Promise.resolve();
    });
  }

  /**
   * Never asked in practice: the local runtime runs in one replica (local-runtime-lock.ts), which holds every
   * partition. Should its partitions be lost for a moment (the database connection broke), its processes keep
   * running: no one else could adopt them, and this replica takes the partitions back and finds them running.
   */
  release(): Promise<void> {
    return Promise.resolve();
  }

  async shutdown(): Promise<void> {
    await this.simulated.shutdown();
    await Promise.all([...this.processes.values()].map((p) => this.kill(p)));
    await this.options.exclusive?.stop();
  }

  lbWorkers(): LbWorkerAddress[] {
    return [...this.processes.values()].flatMap((p) => (p.lb && !p.done && !p.stopping ? [p.lb] : []));
  }

  /**
   * A load-balancing worker listens on PORT (and PORT_HEALTH) of this machine, where every pod shares one network:
   * each gets free loopback ports of its own in place of the ones its env names (the same port twice when
   * PORT_HEALTH was PORT). Null for any other pod.
   */
  private async lbPorts(
    run: PodRun,
  ): Promise<{ env: Record<string, string>; address: LbWorkerAddress } | null> {
    const ports = lbWorkerPorts(run.env);
    const endpointId = run.env.RUNPOD_ENDPOINT_ID;
    if (!ports || !endpointId) return null;
    const port = await freePort();
    const healthPort = ports.healthPort === ports.port ? port : await freePort();
    return {
      env: { [LB_WORKER_ENV.port]: String(port), [LB_WORKER_ENV.healthPort]: String(healthPort) },
      address: {
        podId: run.podId,
        generation: run.generation,
        endpointId,
        url: `http://127.0.0.1:${port}`,
        healthUrl: `http://127.0.0.1:${healthPort}`,
      },
    };
  }

  workdir(podId: string): string {
    return join(this.podsDir, podId);
  }

  private sidecars(podId: string): string[] {
    return ['epoch', 'pid', 'log'].map((ext) => join(this.podsDir, `${podId}.${ext}`));
  }

  /** One operation per pod at a time. */
  private serialised(podId: string, fn: () => Promise<void>): Promise<void> {
    const previous = this.locks.get(podId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    this.locks.set(podId, settled);
    void settled.then(() => {
      if (this.locks.get(podId) === settled) this.locks.delete(podId);
    });
    return next;
  }

  /** Wipes the container disk when the pod's disk epoch changed (reset), and makes sure it exists. */
  private prepareDisk(run: PodRun): void {
    const dir = this.workdir(run.podId);
    const epochFile = join(this.podsDir, `${run.podId}.epoch`);
    const recorded = existsSync(epochFile) ? readFileSync(epochFile, 'utf8').trim() : null;
    if (recorded !== String(run.diskEpoch)) rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(epochFile, String(run.diskEpoch));
  }

  private spawn(
    run: PodRun,
    argv: string[],
    lb: { env: Record<string, string>; address: LbWorkerAddress } | null,
  ): void {
    const dir = this.workdir(run.podId);
    const proc: LocalProcess = {
      generation: run.generation,
      child: null,
      exited: Promise.resolve(),
      drained: Promise.resolve(),
      done: false,
      stopping: false,
      lb: lb?.address ?? null,
    };
    // Pipes rather than the file as the child's stdout: the lines must reach the log sink. A child outliving
    // pod-lifecycle loses its pipes, but it would be killed as a leftover at the next start anyway.
    const child = spawn(argv[0], argv.slice(1), {
      cwd: dir,
      env: { PATH: this.options.path, HOME: dir, ...containerEnv(run), ...lb?.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const log = this.logs.open(run);
    const closeLog = this.teeOutput(run.podId, child, log);
    proc.child = child;
    proc.exited = new Promise<void>((settle) => {
      child.once('error', (error) => {
        proc.done = true;
        const reason = `the process could not start: ${error.message}`;
        closeLog(reason);
        if (!proc.stopping) this.report(run, PodStatus.Error, { reason });
        settle();
      });
      child.once('exit', (code, signal) => {
        proc.done = true;
        rmSync(join(this.podsDir, `${run.podId}.pid`), { force: true });
        if (!proc.stopping) this.reportExit(run, code, signal);
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
    this.processes.set(run.podId, proc);
    if (child.pid !== undefined) writeFileSync(join(this.podsDir, `${run.podId}.pid`), String(child.pid));
    const ready = setTimeout(() => {
      if (!proc.done && !proc.stopping) this.report(run, PodStatus.Running);
    }, this.options.readyMs);
    ready.unref();
    this.logger.log(
      `pod ${run.podId} run ${run.generation}: started ${argv[0]} (pid ${child.pid ?? '?'}) in ${dir}`,
    );
  }

  /** Sends the child's output to the run's log and appends it to the pod's log file; returns what ends both. */
  private teeOutput(podId: string, child: ChildProcess, log: RunLog): (lastLine: string) => void {
    const file = createWriteStream(join(this.podsDir, `${podId}.log`), { flags: 'a' });
    file.on('error', (error) => this.logger.warn(`pod ${podId}: log file: ${error.message}`));
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

  private reportExit(run: PodRun, code: number | null, signal: NodeJS.Signals | null): void {
    if (code === 0)
      this.report(run, PodStatus.Exited, { exitCode: 0, reason: 'the process exited with code 0' });
    else if (code !== null)
      this.report(run, PodStatus.Error, { exitCode: code, reason: `the process exited with code ${code}` });
    else this.report(run, PodStatus.Error, { reason: `the process was killed by ${signal ?? 'a signal'}` });
  }

  /** Stops a process group: SIGTERM, SIGKILL after a grace period. */
  private async kill(proc: LocalProcess): Promise<void> {
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
   * file still names a live process working in the pod's directory.
   */
  private killLeftover(podId: string): void {
    const pidFile = join(this.podsDir, `${podId}.pid`);
    if (!existsSync(pidFile)) return;
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    rmSync(pidFile, { force: true });
    if (!Number.isInteger(pid) || pid <= 1) return;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) !== this.workdir(podId)) return;
    } catch {
      return; // gone (or not inspectable): nothing of ours to kill
    }
    this.logger.warn(`pod ${podId}: killing process ${pid} left by an earlier run of pod-lifecycle`);
    signalGroup(pid, 'SIGKILL');
  }

  private report(
    run: PodRun,
    status: ObservedStatus,
    extra: { reason?: string; exitCode?: number } = {},
  ): void {
    this.sink.report({ podId: run.podId, generation: run.generation, status, ...extra });
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** A TCP port free on the loopback interface now (the kernel's pick). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
