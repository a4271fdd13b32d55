import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ApiKeyScope } from '@app/contracts';

/** An API key; only its SHA-256 is stored (keys are 256-bit random, so a fast hash is enough). */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Index('api_keys_user_idx')
  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  /** The account the key acts for: its holder's own (`user_id`), or a team the holder is a member of. */
  @Index('api_keys_account_idx')
  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  @Column({ type: 'text' })
  name: string;

  /** The first characters of the key, to recognise it in listings. */
  @Column({ name: 'key_prefix', type: 'text' })
  keyPrefix: string;

  @Index('api_keys_hash_idx', { unique: true })
  @Column({ name: 'key_hash', type: 'text' })
  keyHash: string;

  @Column({ type: 'text' })
  scope: ApiKeyScope;

  /** For scope `endpoints`: the serverless endpoints the key may use. */
  @Column({ name: 'endpoint_ids', type: 'text', array: true, default: () => "'{}'" })
  endpointIds: string[];

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
