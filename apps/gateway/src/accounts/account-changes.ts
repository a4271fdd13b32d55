import { Subjects } from '@app/contracts';
import type { EmitEvent } from '@app/messaging';
import type { RevokedKey } from './api-keys.repository.js';

/**
 * Tells every gateway replica, after the commit, which users' cached principals to drop: one `account.evt.changed`
 * per holder of a revoked key (the outbox relays it at once; core NATS subscribers hear it as it is stored).
 */
export async function announceRevoked(emit: EmitEvent, revoked: RevokedKey[]): Promise<void> {
  const byUser = new Map<string, string[]>();
  for (const key of revoked) byUser.set(key.userId, [...(byUser.get(key.userId) ?? []), key.id]);
  for (const [userId, revokedKeyIds] of byUser) {
    await emit(Subjects.account.changed, { userId, revokedKeyIds, reason: 'key-revoked' }, userId);
  }
}
