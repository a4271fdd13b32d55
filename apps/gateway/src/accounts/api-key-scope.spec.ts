import { describe, expect, it } from '@jest/globals';
import { API_KEY_SCOPES, scopeCovers } from './api-key-scope.js';

describe('scopeCovers: which keys a key may hand out', () => {
  it('a full key: full, read and endpoints keys, never a worker key', () => {
    expect(API_KEY_SCOPES.filter((wanted) => scopeCovers('full', wanted))).toEqual([
      'full',
      'read',
      'endpoints',
    ]);
  });

  it.each(['read', 'endpoints', 'worker'] as const)('a %s key: none', (holder) => {
    expect(API_KEY_SCOPES.filter((wanted) => scopeCovers(holder, wanted))).toEqual([]);
  });
});
