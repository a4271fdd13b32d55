/**
 * A user or some of its API keys changed (a key revoked, the rate-limit exemption switched): published on core
 * NATS by whoever committed the change (the gateway, the keys CLI), after the commit. Every gateway replica drops
 * the principals it caches for the user, so the change is in force everywhere within a second; the cache's TTL
 * (AUTH_CACHE_TTL_MS) bounds how long a replica that missed the event keeps the old one (docs/adr/0012).
 */
export interface AccountChangedEvent {
  /** The user, or the team (`team_…`): every cached principal of that user, or acting for that team, is dropped. */
  userId: string;
  /** The keys revoked, if that is what changed; every cached key of the user is dropped either way. */
  revokedKeyIds: string[];
  reason: 'key-revoked' | 'user-changed' | 'team-changed';
}

/**
 * A console session ended (sign-out) or now acts for another account (the console's team switch): published on
 * core NATS after the database changed, so every gateway replica drops its cached copy at once;
 * SSO_SESSION_CACHE_MS bounds how long a replica that missed it keeps the old one.
 */
export interface SessionChangedEvent {
  /** SHA-256 (hex) of the session id: what the replicas key their cache by (the id itself never travels). */
  sessionHash: string;
  userId: string;
  reason: 'signed-out' | 'account-switched';
}
