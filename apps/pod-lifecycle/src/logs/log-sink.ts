/**
 * What the log sink needs of a run: which run it is and the secrets injected into it, to redact them. The
 * runtime's `PodRun` carries all of it; logs depends on no runtime type, the runtime uses logs.
 */
export interface LoggedRun {
  podId: string;
  generation: number;
  secretEnv: { open(): Record<string, string> };
  pullSecret: { username: string; password(): string } | null;
}

/**
 * Where drivers send what a run's container prints (docs/adr/0020): the sink redacts the secrets the platform
 * injected into the run, batches and publishes. One log per run: opening the same generation again returns it.
 */
export interface LogSink {
  open(run: LoggedRun): RunLog;
}

/** The log of one run of a pod's container. */
export interface RunLog {
  /** A chunk of the container's output as read (any size, not necessarily whole lines). */
  write(stream: 'stdout' | 'stderr', chunk: string): void;
  /** A whole line of the runtime's own (the simulated driver's lifecycle, how a process ended). */
  system(line: string): void;
  /** The run ended: its unfinished lines and buffered batches go out. Idempotent. */
  close(): Promise<void>;
}
