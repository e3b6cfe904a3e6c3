// A bound, not a product path: the least a decoder that skips validation would still do per match object
// (find the object, hash repository and path, find each chunk's ranges and count them) with native string
// search, trusting the JSON to be well formed. It exists to show what dropping validation could buy (see
// notes.md). It is exact on the bench's own batches only; the bench checks its count.
import { hashRange, type Hash64 } from '../../src/stream/hash.js';

const table = new Int32Array(1 << 22);
const path: Hash64 = { hi: 0, lo: 0 };
const repo: Hash64 = { hi: 0, lo: 0 };

/** Index of the quote ending the JSON string whose contents start at `from`. */
function stringEnd(s: string, from: number): number {
  for (;;) {
    const quote = s.indexOf('"', from);
    let k = quote - 1;
    while (s.charCodeAt(k) === 92) k--;
    if (((quote - 1 - k) & 1) === 0) return quote;
    from = quote + 1;
  }
}

/** Counted matches (chunk ranges) of one `matches` event's data, without checking anything. */
export function uncheckedCount(s: string): number {
  let counted = 0;
  for (let at = s.indexOf('{"type":"'); at >= 0; at = s.indexOf('{"type":"', at)) {
    const pathStart = s.indexOf('path":"', at) + 7;
    const pathEnd = s.indexOf('"', pathStart);
    const repoStart = s.indexOf('repository":"', pathEnd) + 13;
    const repoEnd = s.indexOf('"', repoStart);
    hashRange(s, pathStart, pathEnd, path);
    hashRange(s, repoStart, repoEnd, repo);
    const slot = (path.lo ^ repo.lo) & (table.length - 1);
    table[slot] = path.hi ^ repo.hi;
    at = s.indexOf('chunkMatches":[', repoEnd) + 15;
    while (s.startsWith('{"content":"', at)) {
      const ranges = s.indexOf('ranges":[', stringEnd(s, at + 12)) + 9;
      const rangesEnd = s.indexOf(']', ranges);
      for (let r = s.indexOf('{"start"', ranges); r >= 0 && r < rangesEnd; r = s.indexOf('{"start"', r + 8)) counted++;
      at = rangesEnd + 2;
      if (s.charCodeAt(at) !== 44) break;
      at++;
    }
  }
  return counted;
}
