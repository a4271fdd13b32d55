import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { AccountCommands } from './account-commands.js';
import type { AccountEvents } from './account-events.js';
import { AccountsService } from './accounts.service.js';
import type { ApiKeysRepository } from './api-keys.repository.js';
import { PrincipalCache } from './principal-cache.js';
import type { TeamsRepository } from './teams.repository.js';
import type { UsersRepository } from './users.repository.js';

const KEY = `cpk_${'a'.repeat(43)}`;

/** A database whose key lookups answer when the test says (`answer()`, oldest first). */
function setup(ttl = 10_000) {
  const pending: (() => void)[] = [];
  const keys = {
    findWithUserByHash: jest.fn(
      () =>
        new Promise((resolve) => {
          pending.push(() =>
            resolve({
              key: { id: 'k1', userId: 'u1', accountId: 'u1', revokedAt: null },
              user: { id: 'u1', name: 'alice', disabledAt: null },
              team: null,
            }),
          );
        }),
    ),
  };
  const users = {};
  const cache = new PrincipalCache(ttl);
  const accounts = new AccountsService(
    users as unknown as UsersRepository,
    {} as TeamsRepository,
    keys as unknown as ApiKeysRepository,
    cache,
    {} as AccountEvents,
    {} as AccountCommands,
  );
  const answer = async () => {
    pending.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { accounts, cache, lookups: () => keys.findWithUserByHash.mock.calls.length, answer };
}

describe('AccountsService.authenticate', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('looks a key up once for the requests that miss together', async () => {
    const s = setup();
    // Asked three times before the lookup answers (an async wrapper only: authenticate may answer without one).
    const all = [1, 2, 3].map(async () => s.accounts.authenticate(KEY));
    await s.answer();
    expect(s.lookups()).toBe(1);
    for (const found of await Promise.all(all)) expect(found).toMatchObject({ user: { id: 'u1' } });
  });

  it('does not join a lookup that an invalidation overtook', async () => {
    const s = setup();
    const before = s.accounts.authenticate(KEY);
    s.cache.dropUser('u1');
    const after = s.accounts.authenticate(KEY);
    expect(s.lookups()).toBe(2);
    await s.answer();
    await s.answer();
    await Promise.all([before, after]);
  });

  it('past half the TTL, answers from the cache and renews the entry in the background', async () => {
    const s = setup(10_000);
    const first = s.accounts.authenticate(KEY);
    await s.answer();
    await first;
    jest.setSystemTime(4_999);
    await s.accounts.authenticate(KEY);
    expect(s.lookups()).toBe(1);
    jest.setSystemTime(5_000);
    await s.accounts.authenticate(KEY);
    await s.accounts.authenticate(KEY);
    expect(s.lookups()).toBe(2);
    await s.answer();
    // Renewed at 5,000: still cached at 14,999, with no further lookup before its own half-life.
    jest.setSystemTime(9_999);
    await s.accounts.authenticate(KEY);
    expect(s.lookups()).toBe(2);
  });
});
