import { describe, expect, it } from '@jest/globals';
import { PodV2ViewCache } from './pod-v2-view.cache.js';

const json = (text: string) => Buffer.from(text);

describe('PodV2ViewCache', () => {
  it('answers a view only for the row version and the secrets it was made with', () => {
    const cache = new PodV2ViewCache();
    cache.set('p-1', '100', false, json('masked'), 0);
    cache.set('p-1', '100', true, json('clear'), 0);
    expect(cache.get('p-1', '100', false, 1)?.toString()).toBe('masked');
    expect(cache.get('p-1', '100', true, 1)?.toString()).toBe('clear');
    // The row was written again: its view must be made again.
    expect(cache.get('p-1', '101', false, 1)).toBeUndefined();
    expect(cache.get('p-2', '100', false, 1)).toBeUndefined();
    cache.set('p-1', '101', false, json('renamed'), 2);
    expect(cache.get('p-1', '101', false, 3)?.toString()).toBe('renamed');
  });

  it('makes a view again once it is ten minutes old', () => {
    const cache = new PodV2ViewCache();
    cache.set('p-1', '100', false, json('v'), 0);
    expect(cache.get('p-1', '100', false, 600_000)).toBeDefined();
    expect(cache.get('p-1', '100', false, 600_001)).toBeUndefined();
  });

  it('lets the oldest views go past its size', () => {
    const cache = new PodV2ViewCache();
    for (let i = 0; i <= 20_000; i++) cache.set(`p-${i}`, '1', false, json(`${i}`), 0);
    expect(cache.get('p-0', '1', false, 0)).toBeUndefined();
    expect(cache.get('p-1', '1', false, 0)?.toString()).toBe('1');
    expect(cache.get('p-20000', '1', false, 0)?.toString()).toBe('20000');
  });
});
