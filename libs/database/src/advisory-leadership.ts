import type pg from 'pg';
import { coordinationMetrics } from '@app/observability';
import { openLockSession } from './lock-session.js';

export interface LeadershipOptions {
  databaseUrl: string;
  /** What is led, e.g. `endpoint-autoscaler/control-loop`: replicas asking for the same name compete. */
  name: string;
  /** How often a follower asks for the lock and the leader checks its connection. */
  checkMs: number;
  log?: (line: string) => void;
}

/**
 * One leader among the replicas of an app for work that must run once (a control loop, a sweeper), on a Postgres
 * session-level advisory lock (`pg_try_advisory_lock`): Postgres' own mechanism, no consensus of ours. The lock
 * lives as long as this object's dedicated connection, so a leader that dies, or whose connection breaks, frees
 * it at once and a follower takes it at its next check (within `checkMs`). A leader stops leading as soon as
 * a check of its connection fails, before any follower can have the lock; the work it guards must be idempotent
 * across a handover anyway (it issues recorded commands, which owners apply once).
 */
export class AdvisoryLeadership {
  private client: pg.Client | null = null;
  private leading = false;
  private elsewhere = false;
  private timer?: NodeJS.Timeout;
  private checking: Promise<void> | null = null;
  private stopped = false;
  /** A replica whose session broke asks again only after this (ms since the epoch): see `lost`. */
  private rejoinAt = 0;

  constructor(private readonly options: LeadershipOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * True when the last check reached Postgres and the lock was held by another session: someone else leads for
   * certain. False while leading, and while Postgres cannot be asked (then nobody can take the lock either).
   */
  get heldElsewhere(): boolean {
    return this.elsewhere;
  }

  /** Checks at once, then every `checkMs`. */
  start(): void {
    this.stopped = false;
    coordinationMetrics.leading.set({ name: this.options.name }, 0);
    const tick = () => {
      this.checking ??= this.check().finally(() => (this.checking = null));
    };
    tick();
    this.timer = setInterval(tick, this.options.checkMs);
  }

  /** Resolves after the first check (tests and start-up logs). */
  async settled(): Promise<boolean> {
    await this.checking;
    return this.leading;
  }

  /** Gives the lock back (closing the connection frees it too). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.checking;
    const client = this.client;
    this.client = null;
    this.setLeading(false);
    await client?.end().catch(() => undefined);
  }

  private async check(): Promise<void> {
    if (!this.leading && Date.now() < this.rejoinAt) return;
    try {
      const client = await this.connection();
      if (this.leading) {
        await client.query('SELECT 1');
        return;
      }
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked',
        [this.options.name],
      );
      this.elsewhere = !rows[0].locked;
      this.setLeading(rows[0].locked);
    } catch (error) {
      this.elsewhere = false;
      this.lost();
      const client = this.client;
      this.client = null;
      await client?.end().catch(() => undefined);
      this.options.log?.(`leadership of ${this.options.name}: ${(error as Error).message}`);
    }
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    // A broken connection loses the lock: stop leading now rather than at the next check.
    const client = await openLockSession({
      databaseUrl: this.options.databaseUrl,
      applicationName: `leader:${this.options.name}`,
      checkMs: this.options.checkMs,
      onLost: (lost) => {
        if (this.client === lost) this.client = null;
        this.lost();
      },
      stopped: () => this.stopped,
    });
    this.client = client;
    return client;
  }

  /**
   * The session broke (or could not be opened): not leading, and not asking again for two checks, so that a
   * follower whose session is sound (it asks every check) takes over first rather than racing this replica, whose
   * connection just failed, for the lock it lost. Alone, a replica leads again two checks later.
   */
  private lost(): void {
    this.setLeading(false);
    this.rejoinAt = Date.now() + 2 * this.options.checkMs;
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    coordinationMetrics.leading.set({ name: this.options.name }, leading ? 1 : 0);
    coordinationMetrics.leaderChanges.inc({ name: this.options.name, change: leading ? 'acquired' : 'lost' });
    this.options.log?.(`${leading ? 'leading' : 'no longer leading'} ${this.options.name}`);
  }
}
