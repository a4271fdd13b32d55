import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A CPU type of the catalog, loaded from the fleet file. */
@Entity({ name: 'cpu_types' })
export class CpuTypeEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'display_name', type: 'text' })
  displayName: string;

  @Column({ type: 'integer' })
  cores: number;

  @Column({ name: 'threads_per_core', type: 'integer' })
  threadsPerCore: number;
}
