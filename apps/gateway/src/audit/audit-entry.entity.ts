import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One entry of an account's audit trail, as its owner app recorded it (`audit.evt.recorded`). Every index leads with
 * the account and ends with (at, id), the page order read backwards (newest first), so a filtered page is one
 * index range; the last one serves operators reading every account.
 */
@Entity({ name: 'audit_entries' })
@Index('audit_entries_account_idx', ['accountId', 'at', 'id'])
@Index('audit_entries_action_idx', ['accountId', 'action', 'at', 'id'])
@Index('audit_entries_resource_idx', ['accountId', 'resourceId', 'at', 'id'])
@Index('audit_entries_actor_idx', ['accountId', 'actorUserId', 'at', 'id'])
@Index('audit_entries_at_idx', ['at', 'id'])
export class AuditEntryEntity {
  /** Derived from the command's id: a replayed command's entry is the same row. */
  @PrimaryColumn({ type: 'text' })
  id: string;

  /** The command's issue time. */
  @Column({ type: 'timestamptz' })
  at: Date;

  @Column({ name: 'account_id', type: 'text' })
  accountId: string;

  /** The person (a team's member, or the user acting for themselves). */
  @Column({ name: 'actor_user_id', type: 'text' })
  actorUserId: string;

  @Column({ name: 'actor_key_id', type: 'text', nullable: true })
  actorKeyId: string | null;

  @Column({ name: 'actor_kind', type: 'text' })
  actorKind: 'user' | 'system';

  @Column({ name: 'actor_reason', type: 'text', nullable: true })
  actorReason: string | null;

  @Column({ type: 'text' })
  action: string;

  @Column({ name: 'resource_type', type: 'text' })
  resourceType: string;

  @Column({ name: 'resource_id', type: 'text', nullable: true })
  resourceId: string | null;

  /** Null when the command succeeded; otherwise its error code. */
  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode: string | null;

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage: string | null;

  @Column({ type: 'jsonb', nullable: true })
  details: Record<string, string> | null;

  @Column({ name: 'command_id', type: 'text', nullable: true })
  commandId: string | null;
}
