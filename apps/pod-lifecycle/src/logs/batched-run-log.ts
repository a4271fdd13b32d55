import type { LogStreamName, PodLogBatch } from '@app/contracts';
import type { RunLog } from './log-sink.js';

export interface BatchingOptions {
  /** A batch goes out at most this long after its first line. */
  flushMs: number;
  /** ... or as soon as its lines reach this many bytes (well under NATS's 1 MiB payload limit). */
  maxBatchBytes: number;
  /** A line longer than this (after redaction) is cut, marked with `…`. */
  maxLineChars: number;
  /** Batches published but not yet acknowledged, past which new lines are dropped (and counted) rather than queued. */
  maxInFlight: number;
}

export const DEFAULT_BATCHING: BatchingOptions = {
  flushMs: 200,
  maxBatchBytes: 32 * 1024,
  maxLineChars: 16 * 1024,
  maxInFlight: 32,
};

type Line = PodLogBatch['lines'][number];

/**
 * One run's log: splits output chunks into lines per stream, redacts each whole line (a secret split across two
 * chunks is still found), and publishes them in batches, one after the other so their order on the subject is
 * the order they were printed. A chatty container costs one publish per batch, not per line; one faster than
 * the bus loses lines, and a `system` line says how many.
 */
export class BatchedRunLog implements RunLog {
  private readonly partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  private pending: Line[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private dropped = 0;
  private closed = false;

  constructor(
    private readonly run: {
      podId: string;
      generation: number;
      redact: (line: string) => string;
      /** Must not reject: the publisher reports its own failures. */
      publish: (batch: PodLogBatch) => Promise<void>;
      /** Told once, when the log closes. */
      onClose?: () => void;
    },
    private readonly options: BatchingOptions = DEFAULT_BATCHING,
    private readonly now: () => Date = () => new Date(),
  ) {}

  write(stream: 'stdout' | 'stderr', chunk: string): void {
    if (this.closed) return;
    const parts = (this.partial[stream] + chunk).split('\n');
    let rest = parts.pop() ?? '';
    for (const part of parts) this.push(stream, part.endsWith('\r') ? part.slice(0, -1) : part);
    // A line without an end is cut once it is far past the longest line kept (redacted whole before cutting).
    if (rest.length > 4 * this.options.maxLineChars) {
      this.push(stream, rest);
      rest = '';
    }
    this.partial[stream] = rest;
  }

  system(line: string): void {
    if (!this.closed) this.push('system', line);
  }

  close(): Promise<void> {
    if (!this.closed) {
      for (const stream of ['stdout', 'stderr'] as const) {
        if (this.partial[stream]) this.push(stream, this.partial[stream]);
        this.partial[stream] = '';
      }
      this.closed = true;
      this.flush();
      this.run.onClose?.();
    }
    return this.chain;
  }

  private push(stream: LogStreamName, raw: string): void {
    if (this.inFlight >= this.options.maxInFlight) {
      this.dropped += 1;
      return;
    }
    if (this.dropped) {
      this.append(
        'system',
        `${this.dropped} line(s) dropped: the container printed faster than logs are shipped`,
      );
      this.dropped = 0;
    }
    this.append(stream, this.cut(this.run.redact(raw)));
  }

  private append(stream: LogStreamName, line: string): void {
    this.pending.push({ time: this.now().toISOString(), stream, line });
    this.pendingBytes += Buffer.byteLength(line) + 64;
    if (this.pendingBytes >= this.options.maxBatchBytes) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.flushMs);
  }

  private cut(line: string): string {
    return line.length > this.options.maxLineChars ? `${line.slice(0, this.options.maxLineChars)}…` : line;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending.length) return;
    const { podId, generation } = this.run;
    const batch: PodLogBatch = { podId, generation, lines: this.pending };
    this.pending = [];
    this.pendingBytes = 0;
    this.inFlight += 1;
    this.chain = this.chain
      .then(() => this.run.publish(batch))
      .catch(() => undefined) // the publisher reports its failures; the next batch is still tried
      .finally(() => {
        this.inFlight -= 1;
      });
  }
}
