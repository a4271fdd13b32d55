import type { TakenJob } from '@app/contracts';

/**
 * One waiter of a long poll. `fire()` before `wait()` is remembered, so a signal that arrives while the waiter is
 * busy asking the broker is never lost.
 */
export class Watcher {
  private fired = false;
  private wake: (() => void) | null = null;
  waiting = false;

  constructor(private readonly detach: (watcher: Watcher) => void) {}

  fire(): void {
    this.fired = true;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Resolves on a signal, after `ms`, or when `signal` aborts, whichever comes first. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.fired) {
      this.fired = false;
      return;
    }
    if (ms <= 0 || signal.aborted) return;
    this.waiting = true;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
    this.waiting = false;
    this.fired = false;
  }

  close(): void {
    this.detach(this);
  }
}

/** What a job-take poll would ask the broker for: the take a submit may carry for it (SubmitJobCommand.take). */
export interface TakeOffer {
  workerId: string;
  batchSize: number;
  /** When the worker's request arrived: the broker records that as its call, as for the poll's own takes. */
  requestedAt: string;
  gpu?: string;
}

/** A waiting poll claimed by a submit: what to put in the submit, and how to hand the poll its outcome. */
export interface ClaimedTake {
  readonly offer: TakeOffer;
  /** The jobs the submit's take leased to the poll's worker ([] when it leased none). */
  deliver(jobs: TakenJob[]): void;
  /** The submit failed or was not sent: the poll goes on as before, and asks for itself. */
  release(): void;
}

/**
 * A job-take poll's waiter. While it waits, a submit of this gateway may claim it (JobSignals.claimTake): the
 * wait ends, and the poll then awaits `claimed` (the jobs the submit's take leased) instead of sending a take.
 */
export class PollWatcher extends Watcher {
  private pending: Promise<TakenJob[] | null> | null = null;
  private claimedAtMs = 0;

  constructor(
    readonly offer: TakeOffer,
    detach: (watcher: Watcher) => void,
  ) {
    super(detach);
  }

  get claimed(): boolean {
    return this.pending !== null;
  }

  /** When a submit last claimed the poll (its take was asked then), ms since the epoch. */
  get claimedAt(): number {
    return this.claimedAtMs;
  }

  claim(): ClaimedTake {
    let settle: (jobs: TakenJob[] | null) => void = () => undefined;
    this.pending = new Promise<TakenJob[] | null>((resolve) => (settle = resolve));
    this.claimedAtMs = Date.now();
    this.fire();
    return { offer: this.offer, deliver: (jobs) => settle(jobs), release: () => settle(null) };
  }

  /**
   * What the claim's take leased, null if the claim was released (or there is none): awaited once, then the poll
   * may be claimed again.
   */
  async takeClaimed(): Promise<TakenJob[] | null> {
    const pending = this.pending;
    if (!pending) return null;
    try {
      return await pending;
    } finally {
      this.pending = null;
    }
  }
}
