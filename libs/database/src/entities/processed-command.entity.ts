import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { CommandOutcome } from '@app/contracts';

/**
 * One row per command (or event) an app has applied, written in the same transaction as the effect. A
 * redelivered or replayed message finds its row and gets the recorded outcome back without touching anything.
 */
@Entity({ name: 'processed_commands' })
export class ProcessedCommandEntity {
  @PrimaryColumn({ name: 'command_id', type: 'text' })
  commandId: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'jsonb' })
  outcome: CommandOutcome;

  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt: Date;

  @Column({ name: 'processed_at', type: 'timestamptz', default: () => 'now()' })
  processedAt: Date;

  @Column({ name: 'correlation_id', type: 'text' })
  correlationId: string;

  @Column({ name: 'actor_user_id', type: 'text' })
  actorUserId: string;
}
