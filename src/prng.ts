/**
 * mulberry32: a small, fast, seeded pseudo-random generator returning numbers in [0, 1). Not for secrets. Used where
 * the same seed must give the same sequence: the bootstrap interval of `eval compare` (two prints of one comparison
 * agree) and the conformance fuzz (a failing case can be replayed from its seed).
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
