import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A pod on a DRAINING host, as the autoscaler heard it (`endpoint.cmd.drain-workers`): a worker among them is
 * replaced elsewhere, then terminated. Written by that recorded command only, so a rebuild has the same rows (the
 * `workers` table is the control loop's working memory, which a rebuild does not reproduce); the loop reads it with
 * its workers. A pod that is no worker (a user's pod of the host) is kept too and never read: the rows of a host go
 * when it leaves DRAINING.
 */
@Entity({ name: 'draining_pods' })
@Index('draining_pods_host_idx', ['hostId'])
export class DrainingPodEntity {
  @PrimaryColumn({ name: 'pod_id', type: 'text' })
  podId: string;

  @Column({ name: 'host_id', type: 'text' })
  hostId: string;

  /** When the drain was heard (the command's time). */
  @Column({ type: 'timestamptz' })
  since: Date;

  /** When the scheduler stops what is left on the host; null for a drain without one. */
  @Column({ type: 'timestamptz', nullable: true })
  deadline: Date | null;
}
