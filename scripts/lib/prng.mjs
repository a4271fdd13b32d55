// mulberry32: a small seeded generator, so the same arguments always give the same fleet (generate-fleet.mjs) and
// a bench's seeded workload is the same on every run.

/** A generator of floats in [0, 1) from `seed`. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
