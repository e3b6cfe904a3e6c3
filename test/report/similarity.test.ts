import { describe, expect, it } from 'vitest';
import { answerSimilarity, cosine, jaccard, termFrequencies } from '../../src/report/compare/similarity.js';
import { mulberry32 } from '../../src/random.js';

describe('Jaccard overlap of sources', () => {
  it('is |A ∩ B| / |A ∪ B| over sets', () => {
    expect(jaccard(['a', 'b', 'c'], ['b', 'c', 'd'])).toBe(2 / 4);
    expect(jaccard(['a'], ['a'])).toBe(1);
    expect(jaccard(['a', 'b'], ['b', 'a'])).toBe(1);
    expect(jaccard(['a', 'a', 'b'], ['a'])).toBe(1 / 2);
    expect(jaccard(['a'], ['b'])).toBe(0);
  });

  it('is 0 when one side is empty and null when both are', () => {
    expect(jaccard([], ['a'])).toBe(0);
    expect(jaccard([], [])).toBeNull();
  });
});

describe('answer similarity: cosine over term frequencies', () => {
  it('tokenizes on letters, digits and _ runs, lower-cased', () => {
    expect([...termFrequencies('The retry_policy, the RETRY! [x](/a/b.ts) 42').entries()]).toEqual([
      ['the', 2],
      ['retry_policy', 1],
      ['retry', 1],
      ['x', 1],
      ['a', 1],
      ['b', 1],
      ['ts', 1],
      ['42', 1],
    ]);
  });

  it('matches hand-computed cosines', () => {
    // a = {a:1, b:1}, b = {a:1, c:1}: dot 1, norms √2 √2 -> 0.5
    expect(answerSimilarity('a b', 'a c')).toBeCloseTo(0.5, 12);
    // a = {x:2, y:1}, b = {x:1, y:2}: dot 4, norms √5 √5 -> 0.8
    expect(answerSimilarity('x x y', 'y x y')).toBeCloseTo(0.8, 12);
    expect(answerSimilarity('Same words here', 'here same WORDS')).toBe(1);
    expect(answerSimilarity('alpha', 'beta')).toBe(0);
  });

  it('is null when neither has terms, 0 when one has none', () => {
    expect(answerSimilarity(null, undefined)).toBeNull();
    expect(answerSimilarity('', '...')).toBeNull();
    expect(answerSimilarity('answer', null)).toBe(0);
    expect(cosine(new Map(), new Map([['a', 1]]))).toBe(0);
  });

  it('gives exactly the cosine of the terms by definition, for ASCII and other text, changed and unchanged answers', () => {
    const random = mulberry32(4);
    const pieces = ['Retry', 'retry', 'RETRY_policy', 'x', '42', 'a1_b2', '`code`', '[link](/a/b.ts)', 'Ünïcode', 'ﬁle', 'straße', '漢字', '', 'z'.repeat(40)];
    const separators = [' ', ', ', '\n', '...', '**', ' - ', '/'];
    const text = (ascii: boolean): string => {
      let out = '';
      for (let i = Math.floor(random() * 60); i > 0; i--) {
        const piece = pieces[Math.floor(random() * pieces.length)]!;
        out += (ascii && /[^\x00-\x7f]/.test(piece) ? 'w' : piece) + separators[Math.floor(random() * separators.length)];
      }
      return out;
    };
    const byDefinition = (t: string): Map<string, number> => {
      const counts = new Map<string, number>();
      for (const [term] of t.normalize('NFKC').toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) counts.set(term, (counts.get(term) ?? 0) + 1);
      return counts;
    };
    for (let k = 0; k < 400; k++) {
      const a = text(k % 3 !== 0);
      const b = k % 5 === 0 ? a : text(k % 2 === 0);
      expect(answerSimilarity(a, b)).toBe(cosine(byDefinition(a), byDefinition(b)));
      expect(termFrequencies(a)).toEqual(byDefinition(a));
    }
  });
});
