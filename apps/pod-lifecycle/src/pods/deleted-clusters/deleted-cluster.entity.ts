import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A cluster the scheduler deleted, as pod-lifecycle heard it (`cluster.evt.deleted`). Events of one cluster can
 * arrive out of order (a `cluster.evt.created` held by a replica that died is delivered again after its ack wait,
 * behind the delete): members created after their cluster's delete are terminated at once instead of running for
 * a cluster that no longer exists.
 */
@Entity({ name: 'deleted_clusters' })
export class DeletedClusterEntity {
  @PrimaryColumn({ name: 'cluster_id', type: 'text' })
  clusterId: string;

  @Column({ name: 'deleted_at', type: 'timestamptz' })
  deletedAt: Date;
}
