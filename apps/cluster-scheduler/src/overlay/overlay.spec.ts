import { describe, expect, it } from '@jest/globals';
import {
  allocateBlock,
  blockSizeFor,
  formatCidr,
  lowestFreeId,
  memberAddress,
  parseCidr,
} from './overlay.js';

const POOL = parseCidr('10.128.0.0/12');

describe('overlay blocks', () => {
  it('parses and prints CIDRs, masking the address to its network', () => {
    expect(formatCidr(parseCidr('10.128.0.0/12'))).toBe('10.128.0.0/12');
    expect(formatCidr(parseCidr('10.129.7.9/12'))).toBe('10.128.0.0/12');
    expect(parseCidr('10.128.0.0/24').size).toBe(256);
  });

  it.each([
    [2, 16],
    [14, 16],
    [15, 32],
    [30, 32],
    [31, 64],
    [250, 256],
  ])('sizes a block for %i pods as %i addresses', (pods, size) => {
    expect(blockSizeFor(pods)).toBe(size);
  });

  it('takes the lowest aligned block that overlaps nothing in use', () => {
    expect(formatCidr(allocateBlock(POOL, [], 16)!)).toBe('10.128.0.0/28');
    const used = [parseCidr('10.128.0.0/28'), parseCidr('10.128.0.32/28')];
    expect(formatCidr(allocateBlock(POOL, used, 16)!)).toBe('10.128.0.16/28');
    expect(formatCidr(allocateBlock(POOL, used, 32)!)).toBe('10.128.0.64/27');
    expect(formatCidr(allocateBlock(POOL, used, 256)!)).toBe('10.128.1.0/24');
  });

  it('reuses a released block', () => {
    const a = allocateBlock(POOL, [], 256)!;
    const b = allocateBlock(POOL, [a], 256)!;
    expect(formatCidr(b)).toBe('10.128.1.0/24');
    expect(allocateBlock(POOL, [b], 256)).toEqual(a);
  });

  it('ignores used blocks outside the pool and says when the pool is full', () => {
    const small = parseCidr('192.168.0.0/27');
    expect(allocateBlock(small, [parseCidr('10.0.0.0/8')], 16)).toEqual(parseCidr('192.168.0.0/28'));
    expect(allocateBlock(small, [parseCidr('192.168.0.0/28'), parseCidr('192.168.0.16/28')], 16)).toBeNull();
    expect(allocateBlock(small, [], 64)).toBeNull();
  });

  it('gives members consecutive host addresses, the primary first', () => {
    const block = parseCidr('10.128.4.0/24');
    expect(memberAddress(block, 0)).toBe('10.128.4.1');
    expect(memberAddress(block, 249)).toBe('10.128.4.250');
    expect(() => memberAddress(parseCidr('10.0.0.0/28'), 14)).toThrow(RangeError);
  });
});

describe('VXLAN ids', () => {
  it('hands out the lowest free id in range', () => {
    expect(lowestFreeId([], 1, 10)).toBe(1);
    expect(lowestFreeId([1, 2, 4], 1, 10)).toBe(3);
    expect(lowestFreeId([3, 1, 2], 1, 10)).toBe(4);
    expect(lowestFreeId([5], 5, 6)).toBe(6);
    expect(lowestFreeId([5, 6], 5, 6)).toBeNull();
  });
});
