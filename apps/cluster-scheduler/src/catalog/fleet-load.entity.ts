import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Each distinct fleet file loaded, by content hash: booting again with the same file changes nothing. */
@Entity({ name: 'fleet_loads' })
export class FleetLoadEntity {
  @PrimaryColumn({ type: 'text' })
  sha256: string;

  @Column({ type: 'integer' })
  hosts: number;

  @Column({ name: 'loaded_at', type: 'timestamptz' })
  loadedAt: Date;
}
