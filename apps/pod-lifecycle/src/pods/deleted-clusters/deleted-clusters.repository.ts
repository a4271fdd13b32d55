import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DeletedClusterEntity } from './deleted-cluster.entity.js';

/** The clusters pod-lifecycle knows to be deleted (deleted-cluster.entity.ts says why it keeps them). */
@Injectable()
export class DeletedClustersRepository {
  async record(clusterId: string, deletedAt: Date, manager: EntityManager): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(DeletedClusterEntity)
      .values({ clusterId, deletedAt })
      .orIgnore()
      .execute();
  }

  /**
   * Holds the cluster's members until the transaction ends. Creating a cluster's members and terminating them are
   * two commands that two pod-lifecycle replicas may apply at the same time: without it, the create could check
   * "deleted?" before the terminate committed, and the terminate list the members before the create committed, and
   * members of a deleted cluster would stay running (the two-replica fault suite found it). Under the lock, whichever
   * comes second sees what the first wrote.
   */
  async lockMembers(clusterId: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `cluster-members:${clusterId}`,
    ]);
  }

  async isDeleted(clusterId: string, manager: EntityManager): Promise<boolean> {
    return (await manager.countBy(DeletedClusterEntity, { clusterId })) > 0;
  }
}
