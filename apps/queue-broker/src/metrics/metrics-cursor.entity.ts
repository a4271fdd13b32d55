import { Column, Entity, PrimaryColumn } from 'typeorm';
import { NUMERIC_AS_NUMBER } from '@app/database';

/**
 * How far the metrics leader has folded the events stream into the rollups: the last stream sequence applied,
 * written in the same transaction as the rollups it produced, so each event counts exactly once.
 */
@Entity({ name: 'metrics_cursors' })
export class MetricsCursorEntity {
  @PrimaryColumn({ type: 'text' })
  name: string;

  @Column({ name: 'stream_seq', type: 'bigint', transformer: NUMERIC_AS_NUMBER })
  streamSeq: number;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
