import { describe, expect, it } from '@jest/globals';
import type { Principal } from './accounts.service.js';
import { PrincipalCache } from './principal-cache.js';

function principal(userId: string, keyId = `key-${userId}`, accountId = userId): Principal {
  return { user: { id: userId }, key: { id: keyId }, account: { id: accountId } } as unknown as Principal;
}

describe('PrincipalCache', () => {
  it('answers what was stored until the TTL passes, then nothing', () => {
    const cache = new PrincipalCache(1000);
    const alice = principal('alice');
    cache.set('h1', alice, cache.ticket(), 0);
    cache.set('h2', 'unknown', cache.ticket(), 0);
    expect(cache.get('h1', 999)).toBe(alice);
    expect(cache.get('h2', 999)).toBe('unknown');
    expect(cache.get('h1', 1000)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it("drops every key of a changed user, and only that user's", () => {
    const cache = new PrincipalCache(60_000);
    cache.set('a1', principal('alice', 'k1'), cache.ticket(), 0);
    cache.set('a2', principal('alice', 'k2'), cache.ticket(), 0);
    cache.set('b1', principal('bob'), cache.ticket(), 0);
    cache.set('r', 'revoked', cache.ticket(), 0);
    cache.dropUser('alice');
    expect([cache.get('a1', 1), cache.get('a2', 1)]).toEqual([undefined, undefined]);
    expect(cache.get('b1', 1)).toEqual(principal('bob'));
    expect(cache.get('r', 1)).toBe('revoked');
  });

  it('does not store a lookup that an invalidation overtook (read before the revocation, stored after)', () => {
    const cache = new PrincipalCache(60_000);
    const ticket = cache.ticket();
    cache.dropUser('alice'); // the event arrives while the lookup is in flight
    cache.set('a1', principal('alice'), ticket, 0);
    expect(cache.get('a1', 1)).toBeUndefined();
    cache.set('a1', principal('alice'), cache.ticket(), 0);
    expect(cache.get('a1', 1)).toBeDefined();
  });

  it('keeps at most maxEntries, the oldest going first, so a flood of bad keys cannot grow it', () => {
    const cache = new PrincipalCache(60_000, 3);
    for (let i = 0; i < 10; i++) cache.set(`bad${i}`, 'unknown', cache.ticket(), 0);
    expect(cache.size).toBe(3);
    expect(cache.get('bad9', 1)).toBe('unknown');
    expect(cache.get('bad6', 1)).toBeUndefined();
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = new PrincipalCache(0);
    cache.set('h', principal('alice'), cache.ticket(), 0);
    expect(cache.get('h', 0)).toBeUndefined();
    expect(cache.enabled).toBe(false);
  });

  it('says an entry is due for renewal from half its TTL until it expires', () => {
    const cache = new PrincipalCache(1000);
    cache.set('h', principal('alice'), cache.ticket(), 0);
    expect([499, 500, 999, 1000].map((now) => cache.refreshDue('h', now))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(cache.refreshDue('none', 600)).toBe(false);
  });

  it("drops the principals acting for a team when the team changes, and never caches a disabled user's key", () => {
    const cache = new PrincipalCache(1000);
    cache.set('own', principal('alice'), cache.ticket(), 0);
    cache.set('team', principal('alice', 'key-team', 'team_1'), cache.ticket(), 0);
    cache.set('other', principal('bob', 'key-bob', 'team_2'), cache.ticket(), 0);
    cache.dropUser('team_1');
    expect(cache.get('own', 1)).toBeDefined();
    expect(cache.get('team', 1)).toBeUndefined();
    expect(cache.get('other', 1)).toBeDefined();
    cache.set('off', 'disabled', cache.ticket(), 0);
    expect(cache.get('off', 1)).toBeUndefined();
  });
});
