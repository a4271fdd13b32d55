import type pg from 'pg';
import { coordinationMetrics } from '@app/observability';
import { openLockSession } from './lock-session.js';

export interface PartitionsOptions {
  databaseUrl: string;
  /** What is partitioned, e.g. `pod-lifecycle/runtime`: replicas using the same name share its partitions. */
  name: string;
  /** How many partitions there are: the same in every replica (a constant of the code, not configuration). */
  partitions: number;
  /** How often a replica counts the members, gives back what is over its share and takes free partitions. */
  checkMs: number;
  /** Partitions just taken: pick their work up. Runs before the next check. */
  onAcquired(partitions: number[]): Promise<void>;
  /**
   * Partitions about to be given back (a new replica joined) or already lost (the connection broke, so another
   * replica may hold them already): stop driving their work now. Nothing is unlocked before this resolves.
   */
  onReleased(partitions: number[]): Promise<void>;
  log?: (line: string) => void;
}

/** The shared lock every member holds (its key is outside the partitions' range). */
const MEMBER_KEY = 2_147_483_647;

/**
 * Work split among the replicas of an app, each part driven by exactly one replica at a time, on Postgres
 * session-level advisory locks (docs/adr/0018-partitioned-runtime.md): partition `k` of `name` is the lock
 * `(hashtext(name), k)`, and every replica also holds a shared lock `(hashtext(name), MEMBER_KEY)`, so `pg_locks`
 * tells how many replicas there are. Each check a replica aims at its share (`partitions / members`, split as
 * evenly as it goes): it gives back what is over (after `onReleased`) and takes free partitions up to it (then
 * `onAcquired`). A replica that dies closes
 * its connection and Postgres frees its locks at once: the others take its share at their next check. One that is
 * frozen (SIGSTOP) keeps its connection and so its locks: its share waits, but nobody drives it twice.
 */
export class AdvisoryPartitions {
  private client: pg.Client | null = null;
  private readonly held = new Set<number>();
  private timer?: NodeJS.Timeout;
  private checking: Promise<void> | null = null;
  private stopped = false;
  /** The backend of this replica's connection: its rank among the members. */
  private backendPid = 0;
  /** Where this replica starts looking for free partitions, so replicas do not all race for the same ones. */
  private readonly offset: number;

  constructor(private readonly options: PartitionsOptions) {
    this.offset = Math.floor(Math.random() * options.partitions);
  }

  /** The partitions this replica drives now, ascending. */
  owned(): number[] {
    return [...this.held].sort((a, b) => a - b);
  }

  owns(partition: number): boolean {
    return this.held.has(partition);
  }

  /** Checks at once, then every `checkMs`. */
  start(): void {
    this.stopped = false;
    const tick = () => {
      this.checking ??= this.check().finally(() => (this.checking = null));
    };
    tick();
    this.timer = setInterval(tick, this.options.checkMs);
  }

  /** Resolves after the check under way (tests, start-up). */
  async settled(): Promise<number[]> {
    await this.checking;
    return this.owned();
  }

  /** Stops driving every partition, then gives the locks back (closing the connection frees them). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.checking;
    await this.release(this.owned());
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async check(): Promise<void> {
    try {
      const client = await this.connection();
      const { share, taken } = await this.census(client);
      const over = this.owned().slice(share);
      if (over.length) {
        await this.release(over);
        for (const partition of over) {
          await client.query('SELECT pg_advisory_unlock(hashtext($1), $2)', [this.options.name, partition]);
        }
      }
      if (this.held.size < share) await this.take(client, share, taken);
    } catch (error) {
      await this.lose(`${(error as Error).message}`);
    }
  }

  /**
   * This replica's share: the partitions split as evenly as they go, the replicas first in backend-pid order
   * taking one more when they do not divide evenly (so every replica computes the same split).
   */
  private async census(client: pg.Client): Promise<{ share: number; taken: Set<number> }> {
    const { rows } = await client.query<{ key: string; mode: string; pid: number }>(
      `SELECT objid::int8 AS key, mode, pid FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = hashtext($1)::oid
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [this.options.name],
    );
    const members: number[] = [];
    const taken = new Set<number>();
    for (const row of rows) {
      if (Number(row.key) === MEMBER_KEY) members.push(row.pid);
      else if (row.mode === 'ExclusiveLock') taken.add(Number(row.key));
    }
    members.sort((a, b) => a - b);
    const rank = Math.max(0, members.indexOf(this.backendPid));
    const count = Math.max(1, members.length);
    const { partitions } = this.options;
    return { share: Math.floor(partitions / count) + (rank < partitions % count ? 1 : 0), taken };
  }

  /** Tries free partitions up to this replica's share. */
  private async take(client: pg.Client, share: number, taken: Set<number>): Promise<void> {
    const { partitions, name } = this.options;
    const start = this.offset;
    const acquired: number[] = [];
    for (let i = 0; i < partitions && this.held.size < share; i++) {
      const partition = (start + i) % partitions;
      if (this.held.has(partition) || taken.has(partition)) continue;
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1), $2) AS locked',
        [name, partition],
      );
      if (!rows[0].locked) continue;
      this.held.add(partition);
      acquired.push(partition);
    }
    if (!acquired.length) return;
    acquired.sort((a, b) => a - b);
    this.count('acquired', acquired.length);
    this.options.log?.(`took partitions ${ranges(acquired)} of ${name} (now ${this.held.size})`);
    await this.options.onAcquired(acquired);
  }

  private async release(partitions: number[]): Promise<void> {
    if (!partitions.length) return;
    for (const partition of partitions) this.held.delete(partition);
    this.count('released', partitions.length);
    this.options.log?.(`gave back partitions ${ranges(partitions)} of ${this.options.name}`);
    await this.options.onReleased(partitions);
  }

  private count(move: 'acquired' | 'released', partitions: number): void {
    coordinationMetrics.partitionMoves.inc({ name: this.options.name, move }, partitions);
    coordinationMetrics.partitionsOwned.set({ name: this.options.name }, this.held.size);
  }

  /** The connection broke or a statement failed: whatever was held may be someone else's now. */
  private async lose(reason: string): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
    if (this.held.size) this.options.log?.(`lost the partitions of ${this.options.name}: ${reason}`);
    await this.release(this.owned());
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    // A broken connection has lost its locks: stop driving their work now rather than at the next check.
    const client = await openLockSession({
      databaseUrl: this.options.databaseUrl,
      applicationName: `partitions:${this.options.name}`,
      checkMs: this.options.checkMs,
      onLost: (lost) => void this.dropped(lost),
      stopped: () => this.stopped,
    });
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pg_backend_pid() AS pid, pg_advisory_lock_shared(hashtext($1), $2)',
      [this.options.name, MEMBER_KEY],
    );
    this.backendPid = rows[0].pid;
    this.client = client;
    return client;
  }

  private async dropped(client: pg.Client): Promise<void> {
    if (this.client !== client) return;
    this.checking ??= this.lose('the connection to Postgres ended').finally(() => (this.checking = null));
    await this.checking;
  }
}

/** `[0,1,2,5]` → `0-2,5`, for logs. */
function ranges(sorted: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return parts.join(',');
}
