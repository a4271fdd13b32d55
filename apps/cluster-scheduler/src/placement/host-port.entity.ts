import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { ReservationEntity } from './reservation.entity.js';

/** One public port of a host, held by a reservation; the primary key makes a port impossible to hand out twice. */
@Entity({ name: 'host_ports' })
export class HostPortEntity {
  @PrimaryColumn({ name: 'host_id', type: 'text', primaryKeyConstraintName: 'host_ports_pkey' })
  hostId: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'host_ports_pkey' })
  port: number;

  @Index('host_ports_pod_idx')
  @ForeignKey(() => ReservationEntity, { onDelete: 'CASCADE' })
  @Column({ name: 'pod_id', type: 'text' })
  podId: string;
}
