import type { ObservedStatus, PodStatus } from '@app/contracts';

/**
 * The runtime behind pods (DESIGN.md, "Runtime"). A driver makes containers exist or stop and **reports what it
 * observes**; it never decides a pod's status. Every report becomes a recorded `pod.cmd.observe` command and the
 * status machine (pods/pod-status-machine.ts) decides, so a replay of the command stream reproduces the
 * statuses without any driver. Drivers: `simulated` (timers), `local` (catalog images as child processes, other
 * images simulated); a Kubernetes driver implements the same interface (ensureRunning creates or replaces the
 * pod object for `generation`, stop/remove delete it, a watch reports phase changes as observations).
 *
 * Every method is idempotent and may be called again with the same arguments at any time (after a restart of
 * pod-lifecycle, say); the driver serialises calls for one pod itself.
 */
export interface RuntimeDriver {
  readonly name: string;

  /**
   * Make run `run.generation` of the pod's container exist and run. If another generation is running, replace it
   * (wiping the container disk when `run.diskEpoch` changed); if this generation already runs or already ended,
   * do nothing. Reports STARTING (if the pod is PROVISIONING), then RUNNING, or ERROR; later EXITED or ERROR when
   * the container ends by itself.
   */
  ensureRunning(run: PodRun): Promise<void>;

  /** Stop the container, keep its disk. Reports nothing (the pod's status was decided already). */
  stop(podId: string): Promise<void>;

  /** Stop the container and delete its disk. Reports nothing. */
  remove(podId: string): Promise<void>;

  /**
   * Another pod-lifecycle replica drives these pods from now on (their partition moved, docs/adr/0018): forget
   * every pod `leaving` selects, touching no container, and report nothing more of them. No call for those pods is
   * under way when this is called.
   */
  release(leaving: (podId: string) => boolean): Promise<void>;

  /** pod-lifecycle is stopping: stop whatever this process runs itself. */
  shutdown(): Promise<void>;

  /**
   * The load-balancing workers (pods whose env says RUNPOD_ENDPOINT_TYPE=LB) this driver runs now, and where they
   * answer: pod-lifecycle polls their `/ping` and tells the gateways (docs/adr/0026). A driver without it runs
   * none the gateways can reach.
   */
  lbWorkers?(): LbWorkerAddress[];
}

/** Where a load-balancing worker answers requests (PORT) and its health check (PORT_HEALTH). */
export interface LbWorkerAddress {
  podId: string;
  generation: number;
  endpointId: string;
  /** `http://host:PORT`. */
  url: string;
  /** `http://host:PORT_HEALTH`. */
  healthUrl: string;
}

/** Everything a driver needs to run one generation of a pod's container. */
export interface PodRun {
  podId: string;
  /** Increases on every start and reset: observations name it, so late reports of an older run are ignored. */
  generation: number;
  /** Increases on every reset: a new epoch means a fresh (empty) container disk. */
  diskEpoch: number;
  /** Where the pod is now: PROVISIONING (new), STARTING (started or reset) or RUNNING (already up). */
  status: PodStatus;
  image: string;
  /** Arguments to the entrypoint (`dockerArgs`). */
  args: string | null;
  /** The container's environment (the pod's env plus the RUNPOD_* variables), unmasked; without `secretEnv`. */
  env: Record<string, string>;
  /** The platform's secret variables (a worker's key): they win over `env`; opened only when the driver asks. */
  secretEnv: SecretEnv;
  ports: string[];
  portMappings: Record<string, number>;
  gpuTypeId: string | null;
  gpuCount: number;
  hostId: string | null;
  containerDiskGb: number;
  /** The pod's data center, its network volume and where that is mounted (drivers that place and mount). */
  dataCenterId?: string | null;
  networkVolumeId?: string | null;
  volumeMountPath?: string | null;
  /** How to authenticate the image pull, when the image is private. */
  pullSecret: PullSecret | null;
}

/**
 * A registry credential, opened only when the driver pulls. `password()` decrypts on each call; never log it,
 * never keep it, never put it in a report.
 */
export interface PullSecret {
  registryAuthId: string;
  username: string;
  password(): string;
}

/**
 * Secret environment variables, sealed until `open()` decrypts them (on each call; it throws naming the variable
 * when one cannot be opened). Never log the values, never keep them, never put them in a report; a driver that
 * can hand them to its runtime by reference (a Kubernetes Secret) does so rather than inline them.
 */
export interface SecretEnv {
  /** The variables' names, sorted. */
  readonly names: readonly string[];
  open(): Record<string, string>;
}

/** What a process-running driver passes to the container: `env`, with the secret variables opened over it. */
export function containerEnv(run: PodRun): Record<string, string> {
  return { ...run.env, ...run.secretEnv.open() };
}

/** What a driver saw of one run of a pod's container. */
export interface Observation {
  podId: string;
  generation: number;
  status: ObservedStatus;
  reason?: string;
  exitCode?: number;
}

/** Where drivers report observations (pod-lifecycle turns each one into a `pod.cmd.observe` command). */
export interface ObservationSink {
  report(observation: Observation): void;
}

export const RUNTIME_DRIVER = Symbol('runtime:driver');
export const OBSERVATION_SINK = Symbol('runtime:observation-sink');

export type { LogSink, RunLog } from '../logs/log-sink.js';

export const LOG_SINK = Symbol('runtime:log-sink');
