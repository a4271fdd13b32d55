/**
 * Spreads work over a fixed number of lanes by key and applies each lane's work in batches: items with the same
 * key go to the same lane and are applied in the order they were pushed; a lane applies at most one batch at a
 * time, of at most `batchMax` items (everything that piled up while the previous batch ran), so batches grow with
 * the load on their own and a lone item is applied at once. `apply` answers every item itself; if it throws
 * anyway, `onError` hears of it and the lane goes on with the next batch.
 */
export class LaneScheduler<T> {
  private readonly lanes: T[][];
  private readonly running: (Promise<void> | null)[];
  private buffered = 0;
  private readonly roomWaiters: (() => void)[] = [];

  constructor(
    laneCount: number,
    private readonly batchMax: number,
    private readonly apply: (batch: T[]) => Promise<void>,
    private readonly onError: (error: unknown, batch: T[]) => void = () => undefined,
  ) {
    if (laneCount < 1 || batchMax < 1) {
      throw new Error('a scheduler needs at least one lane and batches of one');
    }
    this.lanes = Array.from({ length: laneCount }, () => []);
    this.running = Array.from({ length: laneCount }, () => null);
  }

  /** Items pushed and not yet applied. */
  get size(): number {
    return this.buffered;
  }

  /** The lane of a key: a stable hash (FNV-1a), so one key always lands in one lane; null keys use lane 0. */
  laneOf(key: string | null): number {
    if (key === null || this.lanes.length === 1) return 0;
    let hash = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) {
      hash ^= key.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0) % this.lanes.length;
  }

  push(key: string | null, item: T): void {
    const lane = this.laneOf(key);
    this.lanes[lane].push(item);
    this.buffered++;
    this.running[lane] ??= this.run(lane);
  }

  /** Resolves once fewer than `limit` items are buffered (back-pressure for whoever pushes). */
  async roomFor(limit: number): Promise<void> {
    while (this.buffered >= limit) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /** Resolves once every lane is idle. */
  async drained(): Promise<void> {
    for (;;) {
      const running = this.running.filter((r): r is Promise<void> => r !== null);
      if (!running.length) return;
      await Promise.all(running);
    }
  }

  private async run(lane: number): Promise<void> {
    // Let the pusher's synchronous loop add what it already has before the first batch is cut.
    await Promise.resolve();
    const queue = this.lanes[lane];
    try {
      while (queue.length) {
        const batch = queue.splice(0, this.batchMax);
        try {
          await this.apply(batch);
        } catch (error) {
          this.onError(error, batch);
        } finally {
          this.buffered -= batch.length;
          for (const wake of this.roomWaiters.splice(0)) wake();
        }
      }
    } finally {
      this.running[lane] = null;
    }
  }
}
