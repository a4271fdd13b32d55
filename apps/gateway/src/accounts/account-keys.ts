import { hash, randomBytes } from 'node:crypto';
import type { Actor } from '@app/contracts';
import type { KeyWithUser } from './api-keys.repository.js';
import type { Authentication } from './principal-cache.js';
import { UserEntity } from './user.entity.js';

export const API_KEY_PREFIX = 'cpk_';
export const KEY_SHAPE = /^cpk_[A-Za-z0-9_-]{43}$/;

/** Once per request (the auth cache is keyed by it): the one-shot `hash` is about 5× cheaper than a Hash object. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Who the keys CLI and the gateway's own first-run bootstrap act as. */
export const OPERATOR_ACTOR: Actor = { userId: 'system:operator', kind: 'system', reason: 'keys CLI' };

/** A new secret: only its hash and first characters leave this function in a command. */
export function newSecret(): { key: string; keyHash: string; keyPrefix: string } {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, keyHash: hashKey(key), keyPrefix: key.slice(0, 12) };
}

/** The principal a key's lookup describes, or why it is refused. */
export function principalOf(found: KeyWithUser | null): Authentication {
  if (!found) return 'unknown';
  const { key, user, team } = found;
  if (key.revokedAt) return 'revoked';
  // An endpoint's workers' key is the account's, held by no member: for a team, the team stands as its user.
  if (key.scope === 'worker' && !user && team) {
    const holder = Object.assign(new UserEntity(), {
      id: team.id,
      name: team.name,
      rateLimitExempt: false,
      createdAt: key.createdAt,
      disabledAt: null,
      ssoSubject: null,
    });
    return { user: holder, key, account: { id: team.id, name: team.name, kind: 'team' }, role: 'owner' };
  }
  if (!user) return 'unknown';
  if (user.disabledAt) return 'disabled';
  if (team) {
    // No longer a member (their keys were revoked with it; this covers a key the revocation has not reached).
    if (!team.role) return 'revoked';
    return { user, key, account: { id: team.id, name: team.name, kind: 'team' }, role: team.role };
  }
  return { user, key, account: { id: user.id, name: user.name, kind: 'user' }, role: 'owner' };
}
