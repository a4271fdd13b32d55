import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A container registry credential. The password is stored sealed (AES-256-GCM), never in clear. */
@Entity({ name: 'registry_auths' })
@Index('registry_auths_owner_name_uq', ['ownerId', 'name'], { unique: true })
export class RegistryAuthEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  username: string;

  @Column({ name: 'password_sealed', type: 'text' })
  passwordSealed: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
