import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { HostPod } from '@app/contracts';
import { HostEntity } from '../catalog/host.entity.js';
import { table } from '../schema.js';
import type { HostHoldings } from './host-capacity.js';

/**
 * The fleet's writes: hosts locked and saved in the command's transaction, and what the pods on a host hold (read
 * from the placement ledger's reservations and ports, which only placement writes).
 */
@Injectable()
export class HostsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The host's row, locked until the transaction ends (null: no such host). */
  lock(hostId: string, manager: EntityManager): Promise<HostEntity | null> {
    return manager.findOne(HostEntity, { where: { id: hostId }, lock: { mode: 'pessimistic_write' } });
  }

  insert(host: HostEntity, manager: EntityManager): Promise<unknown> {
    return manager.insert(HostEntity, host);
  }

  /** Writes every column of a locked host (the CHECK constraints guard its free counters). */
  async save(host: HostEntity, manager: EntityManager): Promise<void> {
    const { id, ...columns } = host;
    await manager.update(HostEntity, { id }, columns);
  }

  /** How many pods hold capacity on the host, and the public ports they map, in one statement. */
  async holdings(hostId: string, manager: EntityManager): Promise<HostHoldings> {
    const [row]: { pods: number; ports: number[] }[] = await manager.query(
      `SELECT (SELECT count(*)::int FROM ${table('reservations')} WHERE host_id = $1) AS pods,
              ARRAY(SELECT port FROM ${table('host_ports')} WHERE host_id = $1 ORDER BY port) AS ports`,
      [hostId],
    );
    return { pods: row.pods, ports: row.ports };
  }

  /** The pods holding capacity on the host, by id: what a host-changed or drain-expired event names. */
  podsOn(hostId: string, manager: EntityManager): Promise<HostPod[]> {
    return manager.query(
      `SELECT pod_id AS "podId", owner_id AS "ownerId", cluster_id AS "clusterId"
         FROM ${table('reservations')} WHERE host_id = $1 ORDER BY pod_id`,
      [hostId],
    );
  }

  /** The DRAINING hosts whose deadline is `at` or before and not reported yet, locked, by id. */
  dueDrains(at: Date, manager: EntityManager): Promise<HostEntity[]> {
    return manager
      .createQueryBuilder(HostEntity, 'h')
      .where(`h.scheduling_state = 'DRAINING' AND h.drain_expired_at IS NULL AND h.drain_deadline <= :at`, {
        at,
      })
      .orderBy('h.id')
      .setLock('pessimistic_write')
      .getMany();
  }

  /** Whether any drain's deadline is `at` or before and not reported yet (the leader's check; an index scan). */
  async drainDue(at: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM ${table('hosts')}
        WHERE scheduling_state = 'DRAINING' AND drain_expired_at IS NULL AND drain_deadline <= $1 LIMIT 1`,
      [at],
    );
    return rows.length > 0;
  }
}
