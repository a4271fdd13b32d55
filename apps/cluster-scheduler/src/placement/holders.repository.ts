import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { table } from '../schema.js';
import type { Holder } from './preemption-plan.js';

/** The reservations preemption may choose from: one GPU type's, of some accounts, and everyone's interruptible. */
@Injectable()
export class HoldersRepository {
  async ofType(gpuTypeId: string, accountIds: readonly string[], manager: EntityManager): Promise<Holder[]> {
    const rows: (Omit<Holder, 'since'> & { since: Date | string })[] = await manager.query(
      `SELECT r.pod_id AS "podId", r.owner_id AS "ownerId", r.cluster_id AS "clusterId", r.host_id AS "hostId",
              r.data_center_id AS "dataCenterId", r.gpu_count AS gpus,
              (SELECT count(*) FROM jsonb_object_keys(r.port_mappings))::int AS ports,
              r.priority::int AS priority, r.interruptible, r.created_at AS since, q.cohort
         FROM ${table('reservations')} r LEFT JOIN ${table('quotas')} q ON q.account_id = r.owner_id
        WHERE r.gpu_type_id = $1 AND (r.owner_id = ANY($2::text[]) OR r.interruptible)`,
      [gpuTypeId, accountIds],
    );
    return rows.map((r) => ({ ...r, since: new Date(r.since) }));
  }
}
