import { Injectable, Logger, StreamableFile } from '@nestjs/common';
import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { PodLogLine, PodLogPage } from '@app/contracts';
import { logRange, MAX_TAIL } from './log-query.js';
import type { LogRequest } from './log-route.decorator.js';
import { PodLogReader, type LogRange } from './pod-log-reader.js';

/** A comment line every so often, so proxies and clients keep an idle event stream open. */
export const HEARTBEAT_MS = 15_000;

/**
 * Serves a pod's lines once the caller's right to them was checked: as server-sent events when the client asks
 * for `text/event-stream` (each event's `data` one line as JSON; `follow` keeps it open), otherwise as one JSON
 * page of at most MAX_TAIL lines, the last ones.
 */
@Injectable()
export class PodLogsService {
  private readonly logger = new Logger('logs');

  constructor(private readonly reader: PodLogReader) {}

  /**
   * `pod` names the pod once the caller's right to it is checked (404/403); it is asked only after the query
   * passed validation, so a bad query is a 422 whatever it names, as a bad body is on every route.
   */
  async respond(
    pod: () => Promise<string>,
    { query, accept, reply }: LogRequest,
  ): Promise<PodLogPage | StreamableFile> {
    const range = logRange(query);
    const podId = await pod();
    if (accept?.includes('text/event-stream')) return this.events(podId, range, reply);
    const lines: PodLogLine[] = [];
    const signal = new AbortController().signal;
    await this.reader.read(
      podId,
      { ...range, tail: range.tail ?? MAX_TAIL, follow: false },
      (batch) => {
        lines.push(...batch);
        lines.splice(0, Math.max(0, lines.length - MAX_TAIL));
      },
      signal,
    );
    return { lines };
  }

  private events(podId: string, range: LogRange, reply: FastifyReply): StreamableFile {
    const out = new PassThrough();
    const stop = new AbortController();
    const heartbeat = setInterval(() => out.write(': heartbeat\n\n'), HEARTBEAT_MS);
    // The client went away (or the stream ended): stop reading.
    out.once('close', () => stop.abort());
    reply.header('Cache-Control', 'no-cache').header('X-Accel-Buffering', 'no');
    out.write(': logs\n\n'); // headers and a first byte at once, before any line exists
    const write = (lines: PodLogLine[]): Promise<void> | void => {
      const ok = out.write(lines.map((line) => `data: ${JSON.stringify(line)}\n\n`).join(''));
      // A slow client holds the reading rather than have the lines pile up here.
      if (!ok && !out.destroyed) {
        return new Promise((resume) => {
          out.once('drain', resume);
          out.once('close', resume);
        });
      }
    };
    void this.reader
      .read(podId, range, write, stop.signal)
      .catch((error: Error) => {
        this.logger.warn(`pod ${podId}: reading logs failed: ${error.message}`);
        out.write(`event: error\ndata: ${JSON.stringify({ detail: 'reading the logs failed' })}\n\n`);
      })
      .finally(() => {
        clearInterval(heartbeat);
        out.end();
      });
    return new StreamableFile(out, { type: 'text/event-stream' });
  }
}
