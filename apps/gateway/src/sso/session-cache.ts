import type { Principal } from '../accounts/principal.js';
import type { ConsoleSessionEntity } from './console-session.entity.js';

/** What a replica knows of a session: its row and the principal it acts as. */
export interface SessionState {
  row: ConsoleSessionEntity;
  principal: Principal;
}

/**
 * Session hash → state, for SSO_SESSION_CACHE_MS (a few seconds): a console page's requests cost no database
 * round trip each. A sign-out or account switch drops the entry on every replica (session-events.ts); a
 * generation number keeps a lookup that started before such a drop from storing what it read (as PrincipalCache).
 */
export class SessionCache {
  private readonly entries = new Map<string, { state: SessionState | null; until: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached state (null: known to be no session), or undefined when not cached. */
  get(hash: string, now: number): SessionState | null | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.state;
  }

  ticket(): number {
    return this.generation;
  }

  set(hash: string, state: SessionState | null, ticket: number, now: number): void {
    if (this.ttlMs === 0 || ticket !== this.generation) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(hash, { state, until: now + this.ttlMs });
  }

  drop(hash: string): void {
    this.generation++;
    this.entries.delete(hash);
  }

  dropUser(userId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) {
      if (entry.state?.row.userId === userId) this.entries.delete(hash);
    }
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
