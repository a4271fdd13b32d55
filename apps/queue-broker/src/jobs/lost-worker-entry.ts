import { WORKER_LOST_ACTION, deriveId, type AuditEntry, type CommandEnvelope } from '@app/contracts';
import type { LostWorker } from './worker-roster.js';

/**
 * The audit entry of a worker the sweep found lost (docs/adr/0035-audit-trail.md): the sweep is no account's command
 * (job.cmd.sweep is not audited), so it enters each lost worker in the trail of the account it worked for, dated
 * and identified by the sweep's command, so a replay makes the same entries; `why` says how it was found lost (its
 * silence, or its pod preempted). Null for a worker whose account is unknown (it called before any register named
 * it).
 */
export function lostWorkerEntry(
  sweep: Pick<CommandEnvelope, 'commandId' | 'issuedAt'>,
  worker: LostWorker,
  why: string,
): AuditEntry | null {
  if (!worker.ownerId) return null;
  return {
    id: `aud_${deriveId(sweep.commandId, `audit/lost/${worker.id}`)}`,
    at: sweep.issuedAt,
    accountId: worker.ownerId,
    actor: {
      userId: 'system:queue-broker',
      kind: 'system',
      reason: `sweep: ${why}; its jobs are queued again or failed`,
    },
    action: WORKER_LOST_ACTION,
    resourceType: 'worker',
    resourceId: worker.id,
    outcome: { ok: true },
    details: { endpointId: worker.endpointId },
    commandId: sweep.commandId,
  };
}
