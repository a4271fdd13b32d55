import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import type { PodStatus } from '@app/contracts';
import { preparedQuery, writeBehind } from '@app/database';
import { ClusterMemberEntity } from './cluster-member.entity.js';
import { ClusterEntity } from './cluster.entity.js';
import type { ClusterMembership } from '../placement/cluster-membership.js';
import type { Block } from '../overlay/overlay.js';
import type { LiveOverlays } from '../placement/live-overlays.js';
import { table } from '../schema.js';
import type { ClustersMountingVolume } from '../volumes/volume-mounts.js';

export type StatusCounts = Map<string, Partial<Record<PodStatus, number>>>;

/** What a member's status event is compared with (FollowPodStatusHandler). */
export type MemberStatus = Pick<ClusterMemberEntity, 'podId' | 'status' | 'statusAt' | 'portMappings'>;

/** The fields a status event may change on a member (absent: kept). */
export type MemberStatusChange = Pick<ClusterMemberEntity, 'status' | 'statusAt'> &
  Partial<Pick<ClusterMemberEntity, 'portMappings' | 'publicIp' | 'hostId'>>;

// One per pod status event of every cluster member: prepared statements, without TypeORM's query building.
const LOCK_MEMBER = `SELECT pod_id AS "podId", status, status_at AS "statusAt", port_mappings AS "portMappings"
  FROM ${table('cluster_members')} WHERE pod_id = $1 FOR UPDATE`;
const UPDATE_MEMBER_STATUS = `UPDATE ${table('cluster_members')}
  SET status = $2, status_at = $3, port_mappings = coalesce($4::jsonb, port_mappings),
      public_ip = coalesce($5, public_ip), host_id = coalesce($6, host_id)
  WHERE pod_id = $1`;

@Injectable()
export class ClustersRepository implements ClusterMembership, ClustersMountingVolume, LiveOverlays {
  constructor(private readonly dataSource: DataSource) {}

  findLive(id: string, manager: EntityManager = this.dataSource.manager): Promise<ClusterEntity | null> {
    return manager.findOneBy(ClusterEntity, { id, deletedAt: IsNull() });
  }

  /** The live cluster, its row locked for the command (a rename beside a delete: one waits for the other). */
  lockLive(id: string, manager: EntityManager): Promise<ClusterEntity | null> {
    return manager.findOne(ClusterEntity, {
      where: { id, deletedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
  }

  rename(id: string, name: string, manager: EntityManager): Promise<unknown> {
    return manager.update(ClusterEntity, { id }, { name });
  }

  listLiveByOwner(ownerId: string): Promise<ClusterEntity[]> {
    return this.dataSource.manager.find(ClusterEntity, {
      where: { ownerId, deletedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /**
   * The live clusters' VXLAN ids and address blocks (what a new cluster must not reuse), as numbers from the `cidr`
   * column's own arithmetic. Every create reads them all, and as text each CIDR cost a parse (ipaddr.js): some
   * 1.4 ms a create with 240 live clusters. A `cidr` value is its network address, so its distance from 0.0.0.0 is
   * the block's start.
   */
  async liveOverlays(manager: EntityManager): Promise<{ vxlanId: number; block: Block }[]> {
    const rows: { vxlan_id: number; start: string; prefix: number }[] = await manager.query(
      `SELECT vxlan_id, cidr - '0.0.0.0'::inet AS start, masklen(cidr) AS prefix
         FROM ${table('clusters')} WHERE deleted_at IS NULL`,
    );
    return rows.map((r) => ({
      vxlanId: r.vxlan_id,
      block: { start: Number(r.start), size: 2 ** (32 - r.prefix) },
    }));
  }

  /**
   * The cluster and its members in one statement, the members as one JSON document (a 250-pod cluster is 3,000+
   * values: as TypeORM parameters, building the statement cost more than the rest of the create, and one JSON
   * document decodes faster than arrays of JSON); cluster_members' foreign key is checked at the statement's end.
   * What every member of a new cluster shares (the cluster, the first status and the dates) goes once, as scalars,
   * not once per member in the document.
   */
  async insert(
    cluster: ClusterEntity,
    members: readonly ClusterMemberEntity[],
    manager: EntityManager,
  ): Promise<void> {
    const first = members[0];
    const alike = (m: ClusterMemberEntity): boolean =>
      m.clusterId === cluster.id &&
      m.status === first.status &&
      m.statusAt.getTime() === first.statusAt.getTime() &&
      m.createdAt.getTime() === first.createdAt.getTime();
    if (!first || !members.every(alike)) {
      throw new Error(`the members of new cluster ${cluster.id} must be its own, in one status, of one date`);
    }
    await manager.query(
      `WITH cluster AS (
         INSERT INTO ${table('clusters')} (id, owner_id, name, type, gpu_type_id, gpu_count_per_pod, pod_count,
                                           data_center_id, cidr, vxlan_id, vxlan_port, image, args, disk, env, ports,
                                           start_jupyter, start_ssh, mounts, network_volume_id, created_at, deleted_at,
                                           member_env)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::cidr, $10, $11, $12, $13, $14, $15::jsonb, $16::text[], $17, $18,
                 $19::jsonb, $20, $21::timestamptz, $22::timestamptz, $24::jsonb)
       )
       INSERT INTO ${table('cluster_members')} (pod_id, cluster_id, rank, role, name, overlay_ip, host_id, public_ip,
                                               port_mappings, env, status, status_at, created_at)
       SELECT m.pod_id, $1, m.rank, m.role, m.name, m.overlay_ip, m.host_id, m.public_ip, m.port_mappings, m.env,
              $25::text, $26::timestamptz, $27::timestamptz
         FROM jsonb_to_recordset($23::jsonb)
           AS m(pod_id text, rank int, role text, name text, overlay_ip inet, host_id text, public_ip text,
                port_mappings jsonb, env jsonb)`,
      [
        cluster.id,
        cluster.ownerId,
        cluster.name,
        cluster.type,
        cluster.gpuTypeId,
        cluster.gpuCountPerPod,
        cluster.podCount,
        cluster.dataCenterId,
        cluster.cidr,
        cluster.vxlanId,
        cluster.vxlanPort,
        cluster.image,
        cluster.args,
        cluster.disk,
        JSON.stringify(cluster.env),
        cluster.ports,
        cluster.startJupyter,
        cluster.startSsh,
        cluster.mounts === null ? null : JSON.stringify(cluster.mounts),
        cluster.networkVolumeId,
        cluster.createdAt,
        cluster.deletedAt,
        JSON.stringify(
          members.map((m) => ({
            pod_id: m.podId,
            rank: m.rank,
            role: m.role,
            name: m.name,
            overlay_ip: m.overlayIp,
            host_id: m.hostId,
            public_ip: m.publicIp,
            port_mappings: m.portMappings,
            env: m.env,
          })),
        ),
        cluster.memberEnv === null ? null : JSON.stringify(cluster.memberEnv),
        first.status,
        first.statusAt,
        first.createdAt,
      ],
    );
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
   * A member, its row locked until the transaction ends: two replicas handling two status events of one pod side
   * by side then apply them one after the other, each comparing with what the other committed.
   */
  async lockMember(podId: string, manager: EntityManager): Promise<MemberStatus | null> {
    const rows = await preparedQuery<MemberStatus>(manager, 'clusters.lock-member', LOCK_MEMBER, [podId]);
    return rows[0] ?? null;
  }

  async clusterOfMember(podId: string, manager: EntityManager): Promise<string | null> {
    return (await this.findMember(podId, manager))?.clusterId ?? null;
  }

  async clustersOfMembers(podIds: readonly string[], manager: EntityManager): Promise<Map<string, string>> {
    const rows = await preparedQuery<{ pod_id: string; cluster_id: string }>(
      manager,
      'clusters.clusters-of-members',
      `SELECT pod_id, cluster_id FROM ${table('cluster_members')} WHERE pod_id = ANY($1::text[])`,
      [podIds],
    );
    return new Map(rows.map((r) => [r.pod_id, r.cluster_id]));
  }

  mountingVolume(volumeId: string, manager: EntityManager): Promise<number> {
    return manager.countBy(ClusterEntity, { networkVolumeId: volumeId, deletedAt: IsNull() });
  }

  /**
   * Member counts per status and the primary member of each cluster, read from ONE snapshot (a repeatable-read
   * transaction), so a summary never shows a primary whose status its counts do not include yet.
   */
  summaries(
    clusterIds: readonly string[],
  ): Promise<{ counts: StatusCounts; primaries: Map<string, ClusterMemberEntity> }> {
    return this.dataSource.transaction('REPEATABLE READ', (manager) => this.summariesIn(clusterIds, manager));
  }

  /** As `summaries`, in a transaction of the caller's (a command's answer reads what its transaction sees). */
  async summariesIn(
    clusterIds: readonly string[],
    manager: EntityManager,
  ): Promise<{ counts: StatusCounts; primaries: Map<string, ClusterMemberEntity> }> {
    const counts = await this.statusCounts(clusterIds, manager);
    const primaries = await this.primaries(clusterIds, manager);
    return { counts, primaries: new Map(primaries.map((p) => [p.clusterId, p])) };
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

  /** Sent without waiting inside the command's transaction (nothing reads its answer). */
  updateMemberStatus(podId: string, change: MemberStatusChange, manager: EntityManager): Promise<void> {
    return writeBehind(manager, 'clusters.update-member-status', UPDATE_MEMBER_STATUS, [
      podId,
      change.status,
      change.statusAt,
      change.portMappings === undefined ? null : JSON.stringify(change.portMappings),
      change.publicIp ?? null,
      change.hostId ?? null,
    ]);
  }
}
