/**
 * Progress of a long operation on stderr (so stdout stays the result): a spinner redrawn in place on a
 * terminal, a line per change of state otherwise (logs, CI). `--json` and `--quiet` callers pass `enabled: false`.
 */
export class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private readonly startedAt = Date.now();
  private frame = 0;
  private last = '';

  constructor(
    private readonly label: string,
    private readonly enabled: boolean,
  ) {}

  update(state: string): void {
    if (!this.enabled) return;
    const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(1);
    if (this.tty) {
      const spinner = '|/-\\'[this.frame++ % 4];
      process.stderr.write(`\r\x1b[2K${spinner} ${this.label}: ${state} (${seconds}s)`);
    } else if (state !== this.last) {
      process.stderr.write(`${this.label}: ${state} (${seconds}s)\n`);
    }
    this.last = state;
  }

  done(message: string): void {
    if (!this.enabled) return;
    const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(1);
    process.stderr.write(`${this.tty ? '\r\x1b[2K' : ''}${this.label}: ${message} (${seconds}s)\n`);
  }
}

/**
 * Polls `probe` every `intervalMs` until it answers a value (not undefined), showing each state it reports and the
 * final one once; fails after `timeoutMs` naming the last state.
 */
export async function waitFor<T>(
  progress: Progress,
  probe: () => Promise<{ state: string; value?: T }>,
  { timeoutMs, intervalMs = 1000 }: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { state, value } = await probe();
    // The final state is shown by done() alone: update() first would print it twice off a terminal.
    if (value !== undefined) {
      progress.done(state);
      return value;
    }
    progress.update(state);
    if (Date.now() > deadline) {
      throw new Error(`gave up after ${Math.round(timeoutMs / 1000)} s; last state: ${state}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
