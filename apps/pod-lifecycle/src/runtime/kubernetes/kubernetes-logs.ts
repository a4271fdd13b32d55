import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { Log, type KubeConfig } from '@kubernetes/client-node';
import type { LogSink, PodRun, RunLog } from '../runtime-driver.js';
import { CONTAINER_NAME } from './kubernetes-pod.js';

/** Opens a followed log stream of one container: the client's Log class, over the driver's kubeconfig. */
export type KubeLogOpener = (
  namespace: string,
  podName: string,
  out: Writable,
  sinceTime?: string,
) => Promise<AbortController>;

export function kubeLogOpener(config: KubeConfig): KubeLogOpener {
  const log = new Log(config);
  return (namespace, podName, out, sinceTime) =>
    log.log(namespace, podName, CONTAINER_NAME, out, {
      follow: true,
      timestamps: true,
      ...(sinceTime ? { sinceTime } : {}),
    });
}

interface Followed {
  generation: number;
  podName: string;
  log: RunLog;
  /** The open stream, while there is one. */
  stream: AbortController | null;
  /** The Kubernetes timestamp of the last line shipped: a stream opened again resumes after it. */
  lastTime: string | null;
  /** The container ended and its stream too: nothing more will come. */
  finished: boolean;
}

/**
 * Ships a Kubernetes pod's container output (docs/adr/0020): the Kubernetes log API, followed with timestamps
 * once the container has started (before, the API refuses). A stream that breaks while the container runs is
 * opened again at the next observation, from the last line's timestamp, lines up to it skipped. Kubernetes mixes
 * stdout and stderr in one stream: every line is `stdout` here.
 */
export class KubernetesLogFollower {
  private readonly logger = new Logger('runtime:kubernetes');
  private readonly followed = new Map<string, Followed>();

  constructor(
    private readonly open: KubeLogOpener,
    private readonly sink: LogSink,
    private readonly namespace: string,
  ) {}

  /**
   * The run's log opens now (its secrets are at hand now); its lines flow once the container runs. A run found
   * already created (`adopted`: after a restart, or from another replica) is shipped from now on: its earlier
   * lines were shipped by whoever followed it then.
   */
  start(run: PodRun, podName: string, adopted: boolean): void {
    if (this.followed.get(run.podId)?.generation === run.generation) return;
    this.stop(run.podId);
    this.followed.set(run.podId, {
      generation: run.generation,
      podName,
      log: this.sink.open(run),
      stream: null,
      lastTime: adopted ? new Date().toISOString() : null,
      finished: false,
    });
  }

  /**
   * The phase the driver last saw the run's Kubernetes pod in: once its container has started (Running, or ended
   * already) it is followed, again if its stream broke while it runs.
   */
  observed(podId: string, generation: number, phase: string | undefined): void {
    const entry = this.followed.get(podId);
    if (!entry || entry.generation !== generation || entry.stream || entry.finished) return;
    if (phase !== 'Running' && phase !== 'Succeeded' && phase !== 'Failed') return;
    void this.follow(podId, entry, phase !== 'Running');
  }

  /** The run is stopped, removed or handed to another replica: no more lines of it from here. */
  stop(podId: string): void {
    const entry = this.followed.get(podId);
    if (!entry) return;
    this.followed.delete(podId);
    entry.finished = true;
    entry.stream?.abort();
    void entry.log.close();
  }

  stopAll(): void {
    for (const podId of [...this.followed.keys()]) this.stop(podId);
  }

  private async follow(podId: string, entry: Followed, containerEnded: boolean): Promise<void> {
    const out = this.lineWriter(entry);
    const opening = new AbortController();
    entry.stream = opening; // marks the stream being opened: one stream at a time, also while it opens
    out.once('finish', () => {
      entry.stream = null;
      if (containerEnded) entry.finished = true;
    });
    try {
      const stream = await this.open(this.namespace, entry.podName, out, entry.lastTime ?? undefined);
      if (entry.finished) stream.abort();
      else if (entry.stream === opening) entry.stream = stream;
    } catch (error) {
      entry.stream = null;
      // An ended pod whose container never started (a failed pull) has no log: not asked again.
      if (containerEnded) entry.finished = true;
      this.logger.warn(
        `pod ${podId}: cannot follow the log of ${entry.podName}: ${(error as Error).message}`,
      );
    }
  }

  /** Splits the stream into `<timestamp> <text>` lines and hands the texts not shipped yet to the run's log. */
  private lineWriter(entry: Followed): Writable {
    let partial = '';
    const ship = (line: string) => {
      const space = line.indexOf(' ');
      const time = space > 0 ? sortable(line.slice(0, space)) : '';
      if (entry.lastTime && time && time <= sortable(entry.lastTime)) return; // shipped by an earlier stream
      if (time) entry.lastTime = time;
      entry.log.write('stdout', `${space > 0 ? line.slice(space + 1) : line}\n`);
    };
    return new Writable({
      decodeStrings: false,
      write(chunk: Buffer | string, _encoding, done) {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        lines.forEach(ship);
        done();
      },
      final(done) {
        if (partial) ship(partial);
        done();
      },
    });
  }
}

/** RFC 3339 times with their fraction padded to nanoseconds, so they compare as strings. */
function sortable(time: string): string {
  const match = /^([^.Z]+)(?:\.(\d+))?Z$/.exec(time);
  return match ? `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}Z` : time;
}
