import { Injectable } from '@nestjs/common';
import type { PodLogLine } from '@app/contracts';
import { PodLogReader } from './pod-log-reader.js';

/**
 * The last lines a pod printed, for a reason that quotes them (a crash-looping worker's last words). Bounded in
 * time and never failing: a reason explains a read, it is not worth failing it, so a slow or unreachable stream
 * gives no lines.
 */
@Injectable()
export class PodLogTail {
  constructor(private readonly reader: PodLogReader) {}

  async last(podId: string, count: number, timeoutMs: number): Promise<string[]> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const lines: PodLogLine[] = [];
    try {
      await this.reader.read(
        podId,
        { tail: count, follow: false },
        (batch) => void lines.push(...batch),
        controller.signal,
      );
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
    return lines.slice(-count).map((l) => l.line);
  }
}
