import type { AuditEntry, AuditResourceType } from '@app/contracts';
import type { AuditEntryEntity } from './audit-entry.entity.js';

/** An entry as `GET /v2/audit` answers it: what its owner recorded, nothing added. */
export function toAuditEntry(row: AuditEntryEntity): AuditEntry {
  return {
    id: row.id,
    at: row.at.toISOString(),
    accountId: row.accountId,
    actor: {
      userId: row.actorUserId,
      ...(row.actorKeyId ? { keyId: row.actorKeyId } : {}),
      kind: row.actorKind,
      ...(row.actorReason ? { reason: row.actorReason } : {}),
    },
    action: row.action,
    resourceType: row.resourceType as AuditResourceType,
    resourceId: row.resourceId,
    outcome:
      row.errorCode === null
        ? { ok: true }
        : { ok: false, code: row.errorCode, message: row.errorMessage ?? '' },
    ...(row.details ? { details: row.details } : {}),
    ...(row.commandId ? { commandId: row.commandId } : {}),
  };
}
