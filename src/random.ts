/** mulberry32: a tiny, fast, seedable generator of floats in [0, 1); the same seed gives the same stream. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over 32-bit units (UTF-16 units of a string, or small integers): a stable 32-bit seed. */
export function fnv1a(units: Iterable<number>, basis = 0x811c9dc5): number {
  let h = basis;
  for (const u of units) h = Math.imul(h ^ u, 0x01000193);
  return h >>> 0;
}

/** The UTF-16 units of a string, for fnv1a. */
export function* codeUnits(text: string): Generator<number> {
  for (let i = 0; i < text.length; i++) yield text.charCodeAt(i);
}
