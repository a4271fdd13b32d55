import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One failed start in a host's streak. */
export interface StartFailure {
  podId: string;
  reason: string;
}

/**
 * A host's current streak of pods that failed to start on it (start-failures.rules.ts says which failures count),
 * oldest first; a pod reaching RUNNING on the host ends it (the row goes), and so does the report it leads to. Written
 * only in `pod.cmd.observe`'s transaction, so replaying the observations rebuilds it.
 */
@Entity({ name: 'host_start_failures' })
export class HostStartFailuresEntity {
  @PrimaryColumn({ name: 'host_id', type: 'text' })
  hostId: string;

  @Column({ type: 'jsonb' })
  failures: StartFailure[];

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
