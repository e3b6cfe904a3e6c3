import { describe, expect, it } from 'vitest';
import { comparator, pageAfter, SORTS, type SortKeys } from '../../src/emulator/listing.js';

// Ties on timestamps on purpose: the order must still be total (by id) and pages must never repeat.
const items: SortKeys[] = Array.from({ length: 257 }, (_, i) => ({
  id: 140 + ((i * 97) % 257),
  createdAtMs: 1_000 + Math.floor(i / 3),
  updatedAtMs: 5_000 + ((i * 31) % 40),
}));

describe('pageAfter', () => {
  it('walks every sort in pages equal to a full sort, for any page size', () => {
    for (const sort of SORTS) {
      const expected = [...items].sort(comparator(sort)).map((k) => k.id);
      for (const size of [1, 7, 20, 256, 257, 300]) {
        const walked: number[] = [];
        let after: SortKeys | undefined;
        for (;;) {
          const page = pageAfter(items, sort, after, size);
          walked.push(...page.items.map((k) => k.id));
          expect(page.hasMore).toBe(walked.length < expected.length);
          if (!page.hasMore) break;
          after = page.items.at(-1);
        }
        expect(walked).toEqual(expected);
      }
    }
  });
});
