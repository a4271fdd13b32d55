import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import type { PodStatus } from '@app/contracts';
import { ClusterMemberEntity } from './cluster-member.entity.js';
import { ClusterEntity } from './cluster.entity.js';
import { table } from '../schema.js';

export type StatusCounts = Map<string, Partial<Record<PodStatus, number>>>;

@Injectable()
export class ClustersRepository {
  constructor(private readonly dataSource: DataSource) {}

  findLive(id: string, manager: EntityManager = this.dataSource.manager): Promise<ClusterEntity | null> {
    return manager.findOneBy(ClusterEntity, { id, deletedAt: IsNull() });
  }

  listLiveByOwner(ownerId: string): Promise<ClusterEntity[]> {
    return this.dataSource.manager.find(ClusterEntity, {
      where: { ownerId, deletedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** VXLAN ids and CIDRs of the live clusters (what a new cluster must not reuse). */
  async liveOverlays(manager: EntityManager): Promise<{ vxlanId: number; cidr: string }[]> {
    const rows: { vxlan_id: number; cidr: string }[] = await manager.query(
      `SELECT vxlan_id, cidr::text AS cidr FROM ${table('clusters')} WHERE deleted_at IS NULL`,
    );
    return rows.map((r) => ({ vxlanId: r.vxlan_id, cidr: r.cidr }));
  }

  async insert(
    cluster: ClusterEntity,
    members: ClusterMemberEntity[],
    manager: EntityManager,
  ): Promise<void> {
    await manager.insert(ClusterEntity, cluster);
    await manager.insert(ClusterMemberEntity, members);
  }

  markDeleted(id: string, at: Date, manager: EntityManager): Promise<unknown> {
    return manager.update(ClusterEntity, { id }, { deletedAt: at });
  }

  members(
    clusterId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ClusterMemberEntity[]> {
    return manager.find(ClusterMemberEntity, { where: { clusterId }, order: { rank: 'ASC' } });
  }

  findMember(podId: string, manager: EntityManager): Promise<ClusterMemberEntity | null> {
    return manager.findOneBy(ClusterMemberEntity, { podId });
  }

  /**
   * Member counts per status and the primary member of each cluster, read from ONE snapshot (a repeatable-read
   * transaction), so a summary never shows a primary whose status its counts do not include yet.
   */
  summaries(
    clusterIds: readonly string[],
  ): Promise<{ counts: StatusCounts; primaries: Map<string, ClusterMemberEntity> }> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const counts = await this.statusCounts(clusterIds, manager);
      const primaries = await this.primaries(clusterIds, manager);
      return { counts, primaries: new Map(primaries.map((p) => [p.clusterId, p])) };
    });
  }

  private primaries(clusterIds: readonly string[], manager: EntityManager): Promise<ClusterMemberEntity[]> {
    if (!clusterIds.length) return Promise.resolve([]);
    return manager
      .createQueryBuilder(ClusterMemberEntity, 'm')
      .where('m.cluster_id = ANY(:ids) AND m.rank = 0', { ids: clusterIds })
      .getMany();
  }

  /** Member counts per status, per cluster. */
  private async statusCounts(clusterIds: readonly string[], manager: EntityManager): Promise<StatusCounts> {
    const counts: StatusCounts = new Map();
    if (!clusterIds.length) return counts;
    const rows: { cluster_id: string; status: PodStatus; n: string }[] = await manager.query(
      `SELECT cluster_id, status, count(*) AS n FROM ${table('cluster_members')} WHERE cluster_id = ANY($1::text[])
        GROUP BY cluster_id, status`,
      [clusterIds],
    );
    for (const row of rows) {
      const byStatus = counts.get(row.cluster_id) ?? {};
      byStatus[row.status] = Number(row.n);
      counts.set(row.cluster_id, byStatus);
    }
    return counts;
  }

  updateMember(
    podId: string,
    changes: Partial<ClusterMemberEntity>,
    manager: EntityManager,
  ): Promise<unknown> {
    return manager.update(ClusterMemberEntity, { podId }, changes);
  }
}
