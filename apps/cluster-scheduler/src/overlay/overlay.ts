import ipaddr from 'ipaddr.js';

/**
 * The clusters' private overlay: a VXLAN network per cluster with an IPv4 block carved from a pool. Pure
 * arithmetic on 32-bit addresses (parsing and printing by ipaddr.js); the database's exclusion constraint on
 * live clusters' CIDRs is what guarantees no two live clusters overlap.
 */
export interface Block {
  /** First address, as an unsigned 32-bit number. */
  start: number;
  /** Number of addresses, a power of two. */
  size: number;
}

/** Smallest block on which every member gets an address, besides the network and broadcast ones; at least a /28. */
export const MIN_BLOCK = 16;

function toNumber(address: ipaddr.IPv4): number {
  return address.toByteArray().reduce((n, byte) => n * 256 + byte, 0);
}

function toAddress(value: number): string {
  return ipaddr
    .fromByteArray([(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255])
    .toString();
}

/** `10.128.0.0/12` → block; the address is masked to the network (so `10.128.1.0/12` is the same pool). */
export function parseCidr(cidr: string): Block {
  const [address, prefix] = ipaddr.IPv4.parseCIDR(cidr);
  const size = 2 ** (32 - prefix);
  return { start: toNumber(address) - (toNumber(address) % size), size };
}

export function formatCidr(block: Block): string {
  return `${toAddress(block.start)}/${32 - Math.log2(block.size)}`;
}

/** The block size for `podCount` members. */
export function blockSizeFor(podCount: number): number {
  let size = MIN_BLOCK;
  while (size < podCount + 2) size *= 2;
  return size;
}

/**
 * The lowest block of `size` addresses, aligned to its size, inside `pool` and overlapping none of `used`
 * (which may come in any order and may lie partly outside the pool). Null when the pool is full.
 */
export function allocateBlock(pool: Block, used: readonly Block[], size: number): Block | null {
  if (size > pool.size) return null;
  const sorted = [...used].sort((a, b) => a.start - b.start);
  const end = pool.start + pool.size;
  let candidate = pool.start;
  for (const block of sorted) {
    if (block.start + block.size <= candidate) continue;
    if (candidate + size <= block.start) break;
    candidate = Math.ceil((block.start + block.size) / size) * size;
  }
  return candidate + size <= end ? { start: candidate, size } : null;
}

/** The overlay address of the member of rank `rank` (rank 0, the primary, gets the block's first host address). */
export function memberAddress(block: Block, rank: number): string {
  if (rank < 0 || rank > block.size - 3) {
    throw new RangeError(`rank ${rank} does not fit in ${formatCidr(block)}`);
  }
  return toAddress(block.start + 1 + rank);
}

/** The lowest free VXLAN id of `[min, max]` given the live ones, or null when every one is taken. */
export function lowestFreeId(taken: readonly number[], min: number, max: number): number | null {
  let candidate = min;
  for (const id of [...taken].sort((a, b) => a - b)) {
    if (id < candidate) continue;
    if (id > candidate) break;
    candidate = id + 1;
  }
  return candidate <= max ? candidate : null;
}
