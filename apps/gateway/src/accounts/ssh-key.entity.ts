import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One of an account's SSH public keys (the interface's "account SSH public keys"); injected by startSsh. */
@Entity({ name: 'ssh_keys' })
@Index('ssh_keys_user_fingerprint_uq', ['userId', 'fingerprint'], { unique: true })
export class SshKeyEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ type: 'text' })
  name: string;

  /** `ssh-ed25519`, `ssh-rsa`, ... */
  @Column({ type: 'text' })
  type: string;

  /** `SHA256:<base64>` of the key blob, as `ssh-keygen -lf` prints it. */
  @Column({ type: 'text' })
  fingerprint: string;

  /** The whole public key line, as registered. */
  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
