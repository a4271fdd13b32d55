import { Presets, SingleBar } from 'cli-progress';

export interface ProgressCounts {
  applied: number;
  skipped: number;
  failed: number;
}

/**
 * Progress of a long replay on stderr, with the rate and the time left: a bar on a terminal; elsewhere (CI logs,
 * pipes) one line every 10 % or every 10 s, whichever comes first. Quiet for fewer than 20 commands.
 */
export class Progress {
  private bar?: SingleBar;
  private lastLine = 0;
  private lastPercent = 0;
  private readonly startedAt = Date.now();

  constructor(
    private readonly total: number,
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    if (total < 20) return;
    if (stream.isTTY) {
      this.bar = new SingleBar(
        {
          stream,
          format: `${label} [{bar}] {value}/{total} | applied {applied} skipped {skipped} failed {failed} | {rate}/s | eta {eta_formatted}`,
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      this.bar.start(total, 0, { applied: 0, skipped: 0, failed: 0, rate: 0 });
    }
  }

  update(done: number, counts: ProgressCounts): void {
    if (this.total < 20) return;
    if (this.bar) {
      this.bar.update(done, { ...counts, rate: this.rate(done, Date.now()) });
      return;
    }
    const percent = Math.floor((done / this.total) * 100);
    const now = Date.now();
    if (done === this.total || percent >= this.lastPercent + 10 || now - this.lastLine >= 10_000) {
      this.lastPercent = percent;
      this.lastLine = now;
      const rate = this.rate(done, now);
      const left = rate > 0 ? Math.ceil((this.total - done) / rate) : null;
      this.stream.write(
        `${this.label}: ${done}/${this.total} (${percent}%) applied ${counts.applied} skipped ${counts.skipped} ` +
          `failed ${counts.failed}, ${rate} commands/s, ${left === null ? 'eta unknown' : `eta ${left} s`}\n`,
      );
    }
  }

  /** Commands per second since the start, rounded. */
  private rate(done: number, now: number): number {
    const seconds = (now - this.startedAt) / 1000;
    return seconds > 0 ? Math.round(done / seconds) : 0;
  }

  stop(): void {
    this.bar?.stop();
  }
}
