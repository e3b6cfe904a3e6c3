import { describe, expect, it } from 'vitest';
import { comparator, ContentIndex, firstPage, SortIndex, SORTS, where, type SortKeys } from '../../src/emulator/listing.js';

// Ties on timestamps on purpose: the order must still be total (by id) and pages must never repeat.
function someItems(): SortKeys[] {
  return Array.from({ length: 257 }, (_, i) => ({
    id: 140 + ((i * 97) % 257),
    createdAtMs: 1_000 + Math.floor(i / 3),
    updatedAtMs: 5_000 + ((i * 31) % 40),
  }));
}

function walk(index: SortIndex<SortKeys>, sort: (typeof SORTS)[number], size: number): number[] {
  const walked: number[] = [];
  let after: SortKeys | undefined;
  for (;;) {
    const page = firstPage(index.after(sort, after), size);
    walked.push(...page.items.map((k) => k.id));
    if (!page.hasMore) return walked;
    after = page.items.at(-1);
  }
}

describe('SortIndex', () => {
  it('walks every sort in pages equal to a full sort, for any page size, also after updates', () => {
    const items = someItems();
    const index = new SortIndex<SortKeys>();
    for (const item of items) index.add(item);
    for (const round of [0, 1]) {
      for (const sort of SORTS) {
        const expected = [...items].sort(comparator(sort)).map((k) => k.id);
        for (const size of [1, 7, 20, 256, 257, 300]) expect(walk(index, sort, size), `${sort} by ${size}, round ${round}`).toEqual(expected);
      }
      // Updates move items in the updated_at order, onto ties and past the newest.
      for (const [n, item] of items.entries()) if (n % 5 === 0) index.touch(item, item.updatedAtMs + (n % 3 === 0 ? 7 : 60));
    }
  });

  it('reads only the page and one more, from a cursor in the middle', () => {
    const items = someItems();
    const index = new SortIndex<SortKeys>();
    for (const item of items) index.add(item);
    for (const sort of SORTS) {
      const sorted = [...items].sort(comparator(sort));
      let read = 0;
      const page = firstPage(where(index.after(sort, sorted[100]), () => ++read > 0), 20);
      expect(page.items.map((k) => k.id)).toEqual(sorted.slice(101, 121).map((k) => k.id));
      expect(read).toBe(21);
    }
  });
});

describe('ContentIndex', () => {
  type Item = SortKeys & { texts: string[] };
  const TEXTS = ['bench question 1', 'bench question 10', 'bench question 12', 'where is retry?', 'alpha beta'];

  /** What a scan over every item finds: those with a text containing the needle, newest update first. */
  const scanned = (items: Item[], needle: string) =>
    items.filter((i) => i.texts.some((t) => t.includes(needle))).sort(comparator('-updated_at')).map((i) => i.id);

  function walk(index: ContentIndex<Item>, needle: string, size: number): { ids: number[]; read: number } {
    const ids: number[] = [];
    let read = 0;
    let after: SortKeys | undefined;
    for (;;) {
      const page = firstPage(where(index.matching(needle, after), () => ++read > 0), size);
      ids.push(...page.items.map((k) => k.id));
      if (!page.hasMore) return { ids, read };
      after = page.items.at(-1);
    }
  }

  it('pages through matches exactly as a scan would, reading only matches, also after updates and new texts', () => {
    const items: Item[] = someItems().map((k, i) => ({ ...k, texts: [TEXTS[i % TEXTS.length] as string] }));
    const index = new ContentIndex<Item>();
    for (const item of items) index.index(item, item.texts);
    for (const round of [0, 1, 2]) {
      for (const needle of ['bench question 1', 'question 12', 'retry', 'a', 'nowhere']) {
        const expected = scanned(items, needle);
        for (const size of [1, 7, 50, 300]) {
          const { ids, read } = walk(index, needle, size);
          expect(ids, `${needle} by ${size}, round ${round}`).toEqual(expected);
          // Each page reads its items and at most one more: nothing that does not match.
          expect(read).toBeLessThanOrEqual(expected.length + Math.ceil(expected.length / size) + 1);
        }
      }
      // Updates move items; follow-ups and titles add texts, some matching twice ("alpha beta" and "beta").
      for (const [n, item] of items.entries()) {
        if (n % 4 === round) item.updatedAtMs += n % 3 === 0 ? 0 : 45;
        if (n % 6 === round) item.texts.push(n % 2 ? 'beta' : 'bench question 19');
        index.index(item, item.texts);
      }
    }
  });
});
