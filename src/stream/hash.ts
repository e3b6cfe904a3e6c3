/** A 64-bit hash as two 32-bit halves (JS has no fast 64-bit integer arithmetic). */
export interface Hash64 {
  hi: number;
  lo: number;
}

/**
 * Hashes the char codes of `s[start, end)` into `out`: FNV-1a and a Murmur-style mix, each finalized.
 * Working on a range avoids creating a substring per match on the hot path.
 */
export function hashRange(s: string, start: number, end: number, out: Hash64): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  out.hi = fmix(h1 ^ (end - start));
  out.lo = fmix(h2);
}

/**
 * `hashRange` of a JSON string's contents starting at `start` (after the opening quote), found and hashed in
 * one pass: returns the index of the closing quote, or -1 at a backslash (an escape: the caller resolves it)
 * or at the end of `s`.
 */
export function hashToQuote(s: string, start: number, out: Hash64): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      out.hi = fmix(h1 ^ (i - start));
      out.lo = fmix(h2);
      return i;
    }
    if (c === 92) return -1;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return -1;
}

/** Combines two hashes (repository, path) into `out`, order-sensitive. */
export function combine(aHi: number, aLo: number, bHi: number, bLo: number, out: Hash64): void {
  out.hi = fmix(aHi ^ Math.imul(bHi ^ 0x9e3779b9, 0xcc9e2d51));
  out.lo = fmix((aLo + Math.imul(bLo ^ 0x7f4a7c15, 0x1b873593)) | 0);
}

/** Murmur3's 32-bit finalizer: spreads every input bit over the output. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
