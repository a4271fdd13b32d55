import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A template: the container configuration pods, clusters and serverless endpoints start from. */
@Entity({ name: 'templates' })
@Index('templates_owner_name_uq', ['ownerId', 'name'], { unique: true })
@Index('templates_registry_auth_idx', ['registryAuthId'])
export class TemplateEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'owner_id', type: 'text' })
  ownerId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  image: string;

  @Column({ type: 'text' })
  args: string;

  /** As given (unmasked); masked only in views. */
  @Column({ type: 'jsonb' })
  env: Record<string, string>;

  @Column({ type: 'jsonb' })
  ports: string[];

  @Column({ name: 'container_disk_gb', type: 'int' })
  containerDiskGb: number;

  /** Host-local persistent storage of the pods made from it, GB (RunPod's `volumeInGb`); 0 for none. */
  @Column({ name: 'volume_gb', type: 'int', default: 0 })
  volumeGb: number;

  @Column({ name: 'volume_mount_path', type: 'text', nullable: true })
  volumeMountPath: string | null;

  @Column({ name: 'is_serverless', type: 'boolean' })
  isServerless: boolean;

  @Column({ name: 'registry_auth_id', type: 'text', nullable: true })
  registryAuthId: string | null;

  @Column({ type: 'text' })
  readme: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
