import type { Principal } from './principal.js';

/**
 * What `authenticate` answers for a key hash; what the cache keeps. `disabled`: the holder is disabled (not cached:
 * an operator may enable them again, and nothing names the user to drop it by).
 */
export type Authentication = Principal | 'unknown' | 'revoked' | 'disabled';

interface Entry {
  value: Authentication;
  expiresAt: number;
  /** Half its life: from then a request still gets it, and one lookup renews it (AccountsService). */
  refreshAt: number;
}

/**
 * Key hash → what `authenticate` found, for AUTH_CACHE_TTL_MS, so a request costs no database round trip
 * (docs/adr/0012-edge-auth-cache-and-limiter.md). Invalidation is by user: an `account.evt.changed` event (a key
 * revoked, an exemption switched) drops every entry of that user on every replica; the TTL bounds how long an
 * entry outlives a lost event.
 *
 * Negative answers are cached too, for the same TTL. `revoked` is final (no key is ever un-revoked). `unknown`
 * cannot hide a key created later: a key is 256 random bits, minted by the gateway and shown only once its row
 * is committed, so nobody can present it (and get it cached as unknown) before it exists, and no "key created"
 * event is needed. What negative caching buys: a client stuck on a wrong or revoked key costs the database one
 * query per TTL, not one per request. A flood of DISTINCT well-formed bad keys still costs one query each (they
 * are all different), which no cache can avoid; `maxEntries` keeps such a flood from growing the map without
 * bound (the oldest entry goes first).
 *
 * The race of an event against a lookup in flight (read before the revocation committed, stored after the event
 * dropped the user) is closed by a generation number: a lookup stores its answer only if no event arrived
 * while it ran (and a request joins a lookup under way only if none did).
 *
 * An entry past half its TTL is still answered while one lookup renews it (`refreshDue`): a key in steady use
 * never makes a request wait for the database, and no answer is older than the TTL.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached answer, or undefined when there is none (or it expired). */
  get(keyHash: string, now = Date.now()): Authentication | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.value;
  }

  /** The entry is past half its life (and not expired): time to renew it in the background. */
  refreshDue(keyHash: string, now = Date.now()): boolean {
    const entry = this.entries.get(keyHash);
    return entry !== undefined && entry.refreshAt <= now && now < entry.expiresAt;
  }

  /** Taken before a lookup; hand it back to `set`. */
  ticket(): number {
    return this.generation;
  }

  /** Stores a lookup's answer unless an invalidation arrived since `ticket` was taken. */
  set(keyHash: string, value: Authentication, ticket: number, now = Date.now()): void {
    if (!this.enabled || ticket !== this.generation || value === 'disabled') return;
    this.entries.delete(keyHash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyHash, { value, expiresAt: now + this.ttlMs, refreshAt: now + this.ttlMs / 2 });
  }

  /**
   * Drops the principals of a user, or acting for an account (a team); negative entries stay (neither `unknown` nor
   * `revoked` can turn valid).
   */
  dropUser(userOrAccountId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) {
      const value = entry.value;
      if (
        typeof value !== 'string' &&
        (value.user.id === userOrAccountId || value.account.id === userOrAccountId)
      ) {
        this.entries.delete(hash);
      }
    }
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
