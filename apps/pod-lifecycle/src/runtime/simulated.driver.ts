import { Logger } from '@nestjs/common';
import { PodStatus, type ObservedStatus } from '@app/contracts';
import type { LogSink, ObservationSink, PodRun, RunLog, RuntimeDriver } from './runtime-driver.js';

export interface SimulatedDriverOptions {
  provisionMs: number;
  startMs: number;
}

/** Pod env markers of the simulated runtime (fault injection for tests and demos; docs/pods.md). */
export const SIM_FAIL_START = 'SIM_FAIL_START';
export const SIM_EXIT_AFTER_MS = 'SIM_EXIT_AFTER_MS';
export const SIM_EXIT_CODE = 'SIM_EXIT_CODE';
/** Per-pod overrides of the configured delays (to hold a pod in PROVISIONING or STARTING, say). */
export const SIM_PROVISION_MS = 'SIM_PROVISION_MS';
export const SIM_START_MS = 'SIM_START_MS';
/** An image whose name contains this never starts (ERROR), like a broken entrypoint. */
export const SIM_FAIL_IMAGE_MARKER = 'sim-fail-start';

interface SimRun {
  generation: number;
  timers: NodeJS.Timeout[];
  /** Its lifecycle lines (the only output a simulated container has). */
  log: RunLog | null;
}

/** Timers hold at most ~24.8 days. */
const MAX_DELAY_MS = 2_147_483_647;

function delay(run: PodRun, name: string, fallback: number): number {
  const value = Number(run.env[name]);
  return run.env[name] !== undefined && Number.isFinite(value) && value >= 0
    ? Math.min(value, MAX_DELAY_MS)
    : fallback;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && !/^(|0|false|no|off)$/i.test(value.trim());
}

/**
 * No container: statuses advance on timers. PROVISIONING → (SIM_PROVISION_MS, pull) → STARTING →
 * (SIM_START_MS) → RUNNING; the pod's env may override both delays (same names). Faults: `SIM_FAIL_START=1` in the pod env or `sim-fail-start` in the image name →
 * ERROR instead of RUNNING; `SIM_EXIT_AFTER_MS=<ms>` (+ `SIM_EXIT_CODE`, default 0) → the container ends on its
 * own that long after RUNNING (EXITED for code 0, ERROR otherwise); a registry credential that cannot be opened
 * → ERROR at pull, a secret variable that cannot be opened → ERROR at start. A dead host is `pod.cmd.host-failed`, handled by the status machine, not here.
 * Its log (`system` lines) tells the same story: pulling, starting, running, exited, stopped.
 */
export class SimulatedDriver implements RuntimeDriver {
  readonly name = 'simulated';
  private readonly logger = new Logger('runtime:simulated');
  private readonly runs = new Map<string, SimRun>();

  constructor(
    private readonly options: SimulatedDriverOptions,
    private readonly sink: ObservationSink,
    private readonly logs: LogSink | null = null,
  ) {}

  ensureRunning(run: PodRun): Promise<void> {
    const current = this.runs.get(run.podId);
    if (current?.generation === run.generation) return Promise.resolve();
    this.cancel(run.podId);
    const sim: SimRun = { generation: run.generation, timers: [], log: this.logs?.open(run) ?? null };
    this.runs.set(run.podId, sim);
    if (run.status === PodStatus.Provisioning) sim.log?.system(`pulling image ${run.image}`);
    else if (run.status !== PodStatus.Running) sim.log?.system('starting the container');
    // A RUNNING pod adopted after a restart of pod-lifecycle keeps running; only its planned exit is re-armed.
    const steps: { afterMs: number; step: () => boolean }[] = [];
    if (run.status === PodStatus.Provisioning) {
      steps.push({
        afterMs: delay(run, SIM_PROVISION_MS, this.options.provisionMs),
        step: () => this.pull(run),
      });
    }
    if (run.status !== PodStatus.Running) {
      steps.push({ afterMs: delay(run, SIM_START_MS, this.options.startMs), step: () => this.start(run) });
    }
    if (run.env[SIM_EXIT_AFTER_MS] !== undefined) {
      steps.push({ afterMs: delay(run, SIM_EXIT_AFTER_MS, 0), step: () => this.exit(run) });
    }
    this.schedule(run.podId, sim, steps);
    return Promise.resolve();
  }

  stop(podId: string): Promise<void> {
    this.runs.get(podId)?.log?.system('the container was stopped');
    this.cancel(podId);
    return Promise.resolve();
  }

  remove(podId: string): Promise<void> {
    return this.stop(podId);
  }

  /** No container to leave behind: the timers stop, and the new owner's driver plays the pod's steps from its row. */
  release(leaving: (podId: string) => boolean): Promise<void> {
    for (const podId of [...this.runs.keys()]) if (leaving(podId)) this.cancel(podId);
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    for (const podId of [...this.runs.keys()]) this.cancel(podId);
    return Promise.resolve();
  }

  /** Runs the steps one after the other, each after its delay; a step returning false ends the run. */
  private schedule(podId: string, sim: SimRun, steps: { afterMs: number; step: () => boolean }[]): void {
    const [first, ...rest] = steps;
    if (!first) return;
    const timer = setTimeout(() => {
      if (this.runs.get(podId) !== sim) return;
      if (first.step()) this.schedule(podId, sim, rest);
    }, first.afterMs);
    timer.unref();
    sim.timers.push(timer);
  }

  private pull(run: PodRun): boolean {
    if (run.pullSecret) {
      try {
        // Authenticating the pull is the one use of the password; the value goes nowhere.
        if (!run.pullSecret.password()) throw new Error('empty password');
      } catch (error) {
        // The message of an opening failure names the key or the missing key ring, never the secret.
        this.report(run, PodStatus.Error, {
          reason: `cannot pull ${run.image}: registry credential ${run.pullSecret.registryAuthId} cannot be opened (${(error as Error).message})`,
        });
        return false;
      }
    }
    this.log(run, `pulled ${run.image}, creating the container`);
    this.report(run, PodStatus.Starting);
    return true;
  }

  private start(run: PodRun): boolean {
    try {
      // Creating the container is when a real runtime needs the secret variables; here they only must open.
      run.secretEnv.open();
    } catch (error) {
      this.report(run, PodStatus.Error, { reason: `cannot start: ${(error as Error).message}` });
      return false;
    }
    if (truthy(run.env[SIM_FAIL_START]) || run.image.includes(SIM_FAIL_IMAGE_MARKER)) {
      this.report(run, PodStatus.Error, { reason: 'simulated start failure: the container did not start' });
      return false;
    }
    this.log(run, 'the container is running');
    this.report(run, PodStatus.Running);
    return true;
  }

  private exit(run: PodRun): boolean {
    const code = Number(run.env[SIM_EXIT_CODE] ?? 0) || 0;
    this.report(run, code === 0 ? PodStatus.Exited : PodStatus.Error, {
      exitCode: code,
      reason: `the container exited with code ${code}`,
    });
    return false;
  }

  private report(
    run: PodRun,
    status: ObservedStatus,
    extra: { reason?: string; exitCode?: number } = {},
  ): void {
    this.logger.debug(`pod ${run.podId} run ${run.generation}: ${status}`);
    // An end of the run (an error or an exit) is its last line.
    if (status === PodStatus.Error || status === PodStatus.Exited) {
      this.log(run, extra.reason ?? status);
      void this.runs.get(run.podId)?.log?.close();
    }
    this.sink.report({ podId: run.podId, generation: run.generation, status, ...extra });
  }

  private log(run: PodRun, line: string): void {
    const sim = this.runs.get(run.podId);
    if (sim?.generation === run.generation) sim.log?.system(line);
  }

  private cancel(podId: string): void {
    const sim = this.runs.get(podId);
    if (!sim) return;
    for (const timer of sim.timers) clearTimeout(timer);
    void sim.log?.close();
    this.runs.delete(podId);
  }
}
