/** Seeded randomness: the same seed and key always give the same stream. */
import { mulberry32 } from '../random.js';

/** 32-bit FNV-1a over the joined parts, a stable seed for a PRNG stream. */
export function hashSeed(...parts: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  const text = parts.map(String).join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  /** Log-normal with the given median and sigma of the underlying normal. */
  logNormal(median: number, sigma: number): number;
}

export function createRng(seed: number): Rng {
  const next = mulberry32(seed);
  const standardNormal = (): number => {
    // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
    const u = 1 - next();
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    logNormal: (median, sigma) => median * Math.exp(sigma * standardNormal()),
  };
}
