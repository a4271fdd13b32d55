import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A machine of the fleet. `free_gpus`, `free_cpu_slots` and `free_ports` are the ledger placement decrements
 * with `... WHERE free_gpus >= n`; the CHECK constraints make a double booking impossible, whatever the code does.
 */
@Entity({ name: 'hosts' })
@Check('hosts_free_gpus_ck', '"free_gpus" >= 0 AND "free_gpus" <= "gpu_count"')
@Check('hosts_free_cpu_slots_ck', '"free_cpu_slots" >= 0 AND "free_cpu_slots" <= "cpu_slots"')
@Check('hosts_free_ports_ck', '"free_ports" >= 0 AND "free_ports" <= "port_end" - "port_start" + 1')
@Index('hosts_gpu_type_idx', ['gpuTypeId', 'dataCenterId'])
export class HostEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'data_center_id', type: 'text' })
  dataCenterId: string;

  /** Null for a CPU-only host. */
  @Column({ name: 'gpu_type_id', type: 'text', nullable: true })
  gpuTypeId: string | null;

  @Column({ name: 'gpu_count', type: 'integer' })
  gpuCount: number;

  @Column({ name: 'free_gpus', type: 'integer' })
  freeGpus: number;

  @Column({ name: 'cpu_type_id', type: 'text', nullable: true })
  cpuTypeId: string | null;

  /** CPU pods the host can run (0 on GPU hosts). */
  @Column({ name: 'cpu_slots', type: 'integer' })
  cpuSlots: number;

  @Column({ name: 'free_cpu_slots', type: 'integer' })
  freeCpuSlots: number;

  @Column({ name: 'public_ip', type: 'text' })
  publicIp: string;

  /** Public ports `[port_start, port_end]` on `public_ip` for the pods' exposed ports. */
  @Column({ name: 'port_start', type: 'integer' })
  portStart: number;

  @Column({ name: 'port_end', type: 'integer' })
  portEnd: number;

  @Column({ name: 'free_ports', type: 'integer' })
  freePorts: number;

  /** False once the host is no longer in the fleet file: it takes no new pods. */
  @Column({ type: 'boolean', default: true })
  active: boolean;
}
