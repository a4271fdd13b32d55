import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { Subjects, deriveId } from '@app/contracts';
import { OutboxMessageEntity, ProcessedCommandEntity } from '@app/database';
import type { EmittedEvent, MessageIdentity } from './applied-message.js';

/** The id of a command's `audit.evt.recorded` event: what `emit(subject, entry, 'audit')` derives in its effect. */
export function auditEventId(commandId: string): string {
  return deriveId(commandId, `evt/${Subjects.audit.recorded}/audit`, 24);
}

/** A refused command's audit event, as its effect would have emitted it had it succeeded. */
export function auditEvent(message: MessageIdentity, payload: unknown): EmittedEvent {
  return {
    id: auditEventId(message.id),
    subject: Subjects.audit.recorded,
    payload,
    correlationId: message.correlationId,
    occurredAt: message.issuedAt,
  };
}

/**
 * A refusal's processed row and its audit event's outbox row, in one transaction (docs/adr/0035-audit-trail.md):
 * the outbox row only if the processed row was written (a refusal recorded meanwhile stands, with its own entry).
 * False when it was recorded already. Refusals only: the job path's subjects are not audited and never get here.
 */
export function recordRefusalWithEntry(
  dataSource: DataSource,
  row: QueryDeepPartialEntity<ProcessedCommandEntity>,
  decidedAt: string | null,
  event: EmittedEvent,
): Promise<boolean> {
  return dataSource.transaction(async (manager) => {
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(ProcessedCommandEntity)
      .values(row)
      .setParameter('decidedAt', decidedAt)
      .orIgnore()
      .returning(['commandId'])
      .execute();
    if (!inserted.raw || !(inserted.raw as unknown[]).length) return false;
    await manager
      .createQueryBuilder()
      .insert()
      .into(OutboxMessageEntity)
      .values({
        id: event.id,
        subject: event.subject,
        payload: event.payload as never,
        correlationId: event.correlationId,
        occurredAt: new Date(event.occurredAt),
      })
      .orIgnore()
      .execute();
    return true;
  });
}
