import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A web console session made by a single sign-on (docs/adr/0036-console-single-sign-on.md). Not a recorded
 * state: a session is the browser's, like a rate-limit counter; it is not rebuilt by a replay (users sign in
 * again), and only the session id's SHA-256 is kept, never the id the cookie carries.
 */
@Entity({ name: 'console_sessions' })
@Index('console_sessions_user_idx', ['userId'])
export class ConsoleSessionEntity {
  /** SHA-256 (hex) of the session id. */
  @PrimaryColumn({ name: 'id_hash', type: 'text' })
  idHash: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  /** The account the console acts for: the user's own id, or a team of theirs chosen in the console. */
  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Renewed at most once a minute by use; the idle expiry counts from it. */
  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt: Date;

  /** The absolute end: created_at + SSO_SESSION_ABSOLUTE_MS. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
