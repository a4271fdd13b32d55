import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { HealthCode, HealthSource, HostSource, SchedulingState } from '@app/contracts';

/**
 * The SQL condition of a host that takes new placements (shown state READY), its columns qualified by `alias` if given: what placement's snapshot and commit
 * and the catalog's availability counts filter on. The pure rules (fleet/host-rules.ts) say the same in code.
 */
export function schedulableSql(alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `${column('scheduling_state')} = 'READY' AND ${column('healthy')}`;
}

/**
 * A machine of the fleet. `free_gpus`, `free_cpu_slots` and `free_ports` are the ledger placement decrements
 * with `... WHERE free_gpus >= n`; the CHECK constraints make a double booking impossible, whatever the code does.
 */
@Entity({ name: 'hosts' })
@Check('hosts_free_gpus_ck', '"free_gpus" >= 0 AND "free_gpus" <= "gpu_count"')
@Check('hosts_free_cpu_slots_ck', '"free_cpu_slots" >= 0 AND "free_cpu_slots" <= "cpu_slots"')
@Check('hosts_free_ports_ck', '"free_ports" >= 0 AND "free_ports" <= "port_end" - "port_start" + 1')
@Check('hosts_scheduling_state_ck', `"scheduling_state" IN ('READY', 'CORDONED', 'DRAINING', 'GONE')`)
@Check('hosts_scheduling_by_ck', `"scheduling_by" IN ('operator', 'kubernetes', 'file')`)
@Check('hosts_source_ck', `"source" IN ('file', 'api', 'kubernetes')`)
@Check('hosts_health_code_ck', '"healthy" OR "health_code" IS NOT NULL')
@Index('hosts_gpu_type_idx', ['gpuTypeId', 'dataCenterId'])
@Index('hosts_drain_due_idx', ['drainDeadline'], {
  where: `"scheduling_state" = 'DRAINING' AND "drain_expired_at" IS NULL`,
})
// The packing order of the hosts that can take a GPU pod (snapshot-statement.ts): an expression index, made by its
// migration (HostsPackingIndex), which TypeORM cannot describe; declared so its schema diff leaves it alone.
@Index('hosts_packing_idx', { synchronize: false })
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

  /**
   * The scheduling half of the state (docs/adr/0039-live-fleet.md): READY, CORDONED (no new placements), DRAINING
   * (no new placements, its pods moved or stopped by the deadline) or GONE (removed). Only a READY and healthy
   * host takes placements (schedulableSql).
   */
  @Column({ name: 'scheduling_state', type: 'text', default: 'READY' })
  schedulingState: SchedulingState;

  /** Who set it: an operator, the Kubernetes node watch, or the fleet file's seed. */
  @Column({ name: 'scheduling_by', type: 'text', default: 'file' })
  schedulingBy: 'operator' | 'kubernetes' | 'file';

  @Column({ name: 'scheduling_reason', type: 'text', nullable: true })
  schedulingReason: string | null;

  @Column({ name: 'scheduling_since', type: 'timestamptz' })
  schedulingSince: Date;

  @Column({ type: 'boolean', default: true })
  healthy: boolean;

  /** Set while unhealthy (the CHECK requires it). */
  @Column({ name: 'health_code', type: 'text', nullable: true })
  healthCode: HealthCode | null;

  @Column({ name: 'health_reason', type: 'text', nullable: true })
  healthReason: string | null;

  @Column({ name: 'health_source', type: 'text', nullable: true })
  healthSource: HealthSource | null;

  @Column({ name: 'health_gpu_index', type: 'integer', nullable: true })
  healthGpuIndex: number | null;

  /** When the health last changed; null: never reported. */
  @Column({ name: 'health_since', type: 'timestamptz', nullable: true })
  healthSince: Date | null;

  /** While DRAINING: when the pods still on it are stopped. */
  @Column({ name: 'drain_deadline', type: 'timestamptz', nullable: true })
  drainDeadline: Date | null;

  /**
   * When `fleet.cmd.expire-drains` reported the deadline passed (fleet.evt.drain-expired): it is reported once; the
   * host stays DRAINING. Null until then, and again after another drain.
   */
  @Column({ name: 'drain_expired_at', type: 'timestamptz', nullable: true })
  drainExpiredAt: Date | null;

  /** Who registered it: the fleet file's seed, the API, the Kubernetes node watch. */
  @Column({ type: 'text' })
  source: HostSource;

  @Column({ name: 'registered_at', type: 'timestamptz' })
  registeredAt: Date;
}
