import { Logger } from '@nestjs/common';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PodStatus, type ObservedStatus } from '@app/contracts';
import { LocalImageCatalog } from './local-image-catalog.js';
import { localLbPorts, type LocalLbPorts } from './local-lb-ports.js';
import { PodSerial } from './pod-serial.js';
import { killLeftover, startLocalProcess, stopLocalProcess, type LocalProcess } from './local-process.js';
import {
  containerEnv,
  type LbWorkerAddress,
  type LogSink,
  type ObservationSink,
  type PodRun,
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

/**
 * The developer-machine runtime. A pod whose image is in the local image catalog runs as a real child process
 * (its own process group) with the pod's environment and nothing else, in `<LOCAL_PODS_DIR>/<podId>/` (its
 * container disk: kept by stop and start, wiped by reset, deleted by terminate); stdout/stderr go to the log
 * sink (served by the logs routes) and, unredacted, to `<LOCAL_PODS_DIR>/<podId>.log` on this machine
 * (local-process.ts: exit code 0 → EXITED, any other end → ERROR). Images not in the catalog are handed to the
 * simulated driver. This class keeps the pods' processes, one operation per pod at a time, and their disks.
 */
export class LocalDriver implements RuntimeDriver {
  readonly name = 'local';
  private readonly logger = new Logger('runtime:local');
  private readonly processes = new Map<string, LocalProcess>();
  private readonly serial = new PodSerial();
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
    return this.serial.run(run.podId, async () => {
      const current = this.processes.get(run.podId);
      if (current?.generation === run.generation) return; // running, or ended and reported
      if (current) await stopLocalProcess(current);
      else this.killLeftover(run.podId);
      this.prepareDisk(run);
      if (run.status === PodStatus.Provisioning) this.report(run, PodStatus.Starting);
      const lb = await localLbPorts(run);
      this.start(run, LocalImageCatalog.argv(image, run.args, this.options.nodeBinary), lb);
    });
  }

  async stop(podId: string): Promise<void> {
    await this.simulated.stop(podId);
    await this.serial.run(podId, async () => {
      const current = this.processes.get(podId);
      if (current) await stopLocalProcess(current);
      else this.killLeftover(podId);
    });
  }

  async remove(podId: string): Promise<void> {
    await this.stop(podId);
    await this.serial.run(podId, () => {
      this.processes.delete(podId);
      for (const path of [this.workdir(podId), ...this.sidecars(podId)]) {
        rmSync(path, { recursive: true, force: true });
      }
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
    await Promise.all([...this.processes.values()].map((p) => stopLocalProcess(p)));
    await this.options.exclusive?.stop();
  }

  lbWorkers(): LbWorkerAddress[] {
    return [...this.processes.values()].flatMap((p) => (p.lb && !p.done && !p.stopping ? [p.lb] : []));
  }

  workdir(podId: string): string {
    return join(this.podsDir, podId);
  }

  private sidecars(podId: string): string[] {
    return ['epoch', 'pid', 'log'].map((ext) => join(this.podsDir, `${podId}.${ext}`));
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

  private start(run: PodRun, argv: string[], lb: LocalLbPorts | null): void {
    const dir = this.workdir(run.podId);
    const proc = startLocalProcess({
      podId: run.podId,
      generation: run.generation,
      argv,
      dir,
      env: { PATH: this.options.path, HOME: dir, ...containerEnv(run), ...lb?.env },
      podsDir: this.podsDir,
      lb: lb?.address ?? null,
      log: this.logs.open(run),
      readyMs: this.options.readyMs,
      observe: (status, extra) => this.report(run, status, extra),
      logger: this.logger,
    });
    this.processes.set(run.podId, proc);
  }

  private killLeftover(podId: string): void {
    killLeftover(this.podsDir, podId, this.workdir(podId), this.logger);
  }

  private report(
    run: PodRun,
    status: ObservedStatus,
    extra: { reason?: string; exitCode?: number } = {},
  ): void {
    this.sink.report({ podId: run.podId, generation: run.generation, status, ...extra });
  }
}
