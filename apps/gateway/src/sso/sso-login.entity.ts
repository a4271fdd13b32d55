import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A sign-in under way: the SHA-256 of the secret in the browser's short-lived login cookie (state, nonce and PKCE
 * verifier are derived from that secret, so none of them is stored). Used once by the callback; ten minutes at most.
 */
@Entity({ name: 'sso_logins' })
export class SsoLoginEntity {
  @PrimaryColumn({ name: 'id_hash', type: 'text' })
  idHash: string;

  /** The console page to open after the sign-in (a `#/...` route), or ''. */
  @Column({ name: 'return_to', type: 'text' })
  returnTo: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
