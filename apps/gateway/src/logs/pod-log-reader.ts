import { Injectable } from '@nestjs/common';
import { DeliverPolicy } from '@nats-io/jetstream';
import { podLogSubject, Streams, type PodLogBatch, type PodLogLine } from '@app/contracts';
import { NatsClient } from '@app/messaging';

/** Which of a pod's lines to read (parsed from the query by log-query.ts). */
export interface LogRange {
  /** The last N lines of what is stored when the read starts (then, when following, every new one). */
  tail?: number;
  /** Only lines printed at or after this time. */
  since?: Date;
  /** After what is stored, wait for new lines until `signal` aborts or the pod is terminated. */
  follow: boolean;
}

/**
 * Reads a pod's lines from the LOGS stream (docs/adr/0020) with an ordered consumer of its subject: ephemeral,
 * flow-controlled, in stream order, so lines come back in the order they were printed. What is stored is found
 * first (the subject's last sequence), so a read without follow knows where to stop.
 */
@Injectable()
export class PodLogReader {
  constructor(private readonly nats: NatsClient) {}

  /** Hands the lines over batch by batch; a handler that returns a promise holds the reading (backpressure). */
  async read(
    podId: string,
    range: LogRange,
    onLines: (lines: PodLogLine[]) => Promise<void> | void,
    signal: AbortSignal,
  ): Promise<void> {
    const stream = this.nats.streamName(Streams.Logs);
    const subject = this.nats.subject(podLogSubject(podId));
    // Nothing stored (the stream itself may not exist yet: pod-lifecycle declares it), or nothing since `since`.
    const last = await this.nats.jsm.streams
      .getMessage(stream, { last_by_subj: subject })
      .catch(async (error: unknown) => {
        if (await this.streamExists(stream)) throw error; // NATS failing: an error, not an empty page
        return null;
      });
    const storedUpTo = last && (!range.since || last.time >= range.since) ? last.seq : 0;
    if (!storedUpTo && !range.follow) return;
    if (!last && range.follow && !(await this.streamExists(stream))) return;
    if (last?.json<PodLogBatch>().end && !storedUpTo) return; // terminated before `since`: nothing will come

    const consumer = await this.nats.js.consumers.get(stream, {
      filter_subjects: subject,
      ...(range.since
        ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: range.since.toISOString() }
        : { deliver_policy: DeliverPolicy.All }),
    });
    const messages = await consumer.consume();
    const stop = () => void messages.stop();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    // The tail is taken from what is stored, so those lines are held until the stored part is read.
    const tail = range.tail ?? 0;
    let held: PodLogLine[] | null = range.tail !== undefined && storedUpTo ? [] : null;
    try {
      for await (const message of messages) {
        const batch = message.json<PodLogBatch>();
        const lines = linesOf(batch, range.since);
        if (held) {
          held.push(...lines);
          if (held.length > 2 * tail) held.splice(0, held.length - tail); // bounded, and not copied per batch
          if (message.seq >= storedUpTo) {
            await onLines(tail ? held.slice(-tail) : []);
            held = null;
          }
        } else if (lines.length) await onLines(lines);
        if (batch.end || (!range.follow && message.seq >= storedUpTo)) break;
      }
    } finally {
      signal.removeEventListener('abort', stop);
      await messages.close().catch(() => undefined);
    }
  }

  private streamExists(stream: string): Promise<boolean> {
    return this.nats.jsm.streams.info(stream).then(
      () => true,
      () => false,
    );
  }
}

function linesOf(batch: PodLogBatch, since: Date | undefined): PodLogLine[] {
  const from = since?.toISOString();
  return batch.lines
    .filter((line) => !from || line.time >= from)
    .map((line) => ({ ...line, generation: batch.generation }));
}
