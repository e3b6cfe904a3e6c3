// How alike two answers and two source lists are. Definitions (docs/csv.md carries the same):
// - sources: Jaccard index of the two sets of source links, |A ∩ B| / |A ∪ B|, from 0 (nothing shared)
//   to 1 (same set; order ignored). Null when neither side has sources (nothing to compare).
// - answers: cosine similarity of term-frequency vectors. Terms are the maximal runs of Unicode letters,
//   digits and `_`, lower-cased (NFKC); Markdown punctuation and whitespace are ignored, word order is not
//   considered. From 0 (no term in common) to 1 (same terms in the same proportions). Null when both
//   answers are missing or have no terms; 0 when only one has.

export function jaccard(a: Iterable<string>, b: Iterable<string>): number | null {
  const x = new Set(a);
  const y = new Set(b);
  if (x.size === 0 && y.size === 0) return null;
  let shared = 0;
  for (const item of x) if (y.has(item)) shared++;
  return shared / (x.size + y.size - shared);
}

import { AsciiTerms, asciiCosine } from './ascii-terms.js';

const TERM = /[\p{L}\p{N}_]+/gu;
const ASCII = /^[\x00-\x7f]*$/;
const NOT_ASCII_TERM = /[^a-z0-9_]+/;

export function termFrequencies(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  // ASCII text is its own NFKC form, and its letters, digits and _ are all its \p{L}, \p{N} and _: the same
  // terms, split natively (faster than matching the Unicode pattern).
  if (ASCII.test(text)) {
    for (const term of text.toLowerCase().split(NOT_ASCII_TERM)) if (term !== '') counts.set(term, (counts.get(term) ?? 0) + 1);
    return counts;
  }
  for (const [term] of text.normalize('NFKC').toLowerCase().matchAll(TERM)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number | null {
  if (a.size === 0 && b.size === 0) return null;
  if (a.size === 0 || b.size === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [term, n] of a) {
    na += n * n;
    const m = b.get(term);
    if (m !== undefined) dot += n * m;
  }
  for (const n of b.values()) nb += n * n;
  // Rounding can put identical vectors a hair above 1.
  return Math.min(1, dot / Math.sqrt(na * nb));
}

/** Reused for every pair: answers are compared one pair at a time. */
const first = new AsciiTerms();
const second = new AsciiTerms();

export function answerSimilarity(a: string | null | undefined, b: string | null | undefined): number | null {
  const x = a ?? '';
  const y = b ?? '';
  // An unchanged answer (common between two runs of a cached or deterministic service) is read once.
  if (ASCII.test(x) && ASCII.test(y)) {
    const terms = first.read(x);
    return asciiCosine(terms, x === y ? terms : second.read(y));
  }
  const terms = termFrequencies(x);
  return cosine(terms, x === y ? terms : termFrequencies(y));
}
