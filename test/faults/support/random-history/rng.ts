import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/**
 * The seeded choices of a randomized history (pure-rand's xoroshiro128+): the same seed draws the same sequence of
 * actions. `fork` gives a client a generator of its own, so what one client draws does not depend on how the
 * others' requests interleave.
 */
export class Rng {
  private constructor(private readonly gen: RandomGenerator) {}

  static seeded(seed: number): Rng {
    return new Rng(xoroshiro128plus(seed));
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return uniformInt(this.gen, min, max);
  }

  /** True with probability `p` (from 0 to 1, to a thousandth). */
  chance(p: number): boolean {
    return this.int(0, 999) < p * 1000;
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items.length ? items[this.int(0, items.length - 1)] : undefined;
  }

  /** One of `weights`' keys, each as likely as its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let at = this.int(0, total - 1);
    for (const [key, weight] of entries) {
      if (at < weight) return key;
      at -= weight;
    }
    return entries[entries.length - 1][0];
  }

  /** A new generator for a client, seeded from this one's next draw. */
  fork(): Rng {
    return Rng.seeded(this.int(0, 0x7fffffff));
  }
}
