/** Sorting and keyset pagination shared by both list operations. */

export const SORTS = ['id', '-id', 'created_at', '-created_at', 'updated_at', '-updated_at'] as const;
export type SortName = (typeof SORTS)[number];

export interface SortKeys {
  id: number;
  createdAtMs: number;
  updatedAtMs: number;
}

/** Total order: ties on a timestamp are broken by id in the same direction. */
export function comparator(sort: SortName): (a: SortKeys, b: SortKeys) => number {
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  const key = (k: SortKeys): number =>
    field === 'created_at' ? k.createdAtMs : field === 'updated_at' ? k.updatedAtMs : k.id;
  return (a, b) => {
    const order = key(a) - key(b) || a.id - b.id;
    return descending ? -order : order;
  };
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/**
 * Items strictly after `after` in the sort order, so walking pages never repeats an item. One pass that
 * keeps only the first size + 1 (no sort of the whole list): a runner looking for a lost create lists
 * once per loss, so a sort per page made a faulty run quadratic in its conversations.
 */
export function pageAfter<T extends SortKeys>(
  items: Iterable<T>,
  sort: SortName,
  after: SortKeys | undefined,
  size: number,
): Page<T> {
  const compare = comparator(sort);
  const first: T[] = [];
  for (const item of items) {
    if (after && compare(item, after) <= 0) continue;
    if (first.length > size && compare(item, first[size]!) >= 0) continue;
    let low = 0;
    let high = first.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(first[mid]!, item) < 0) low = mid + 1;
      else high = mid;
    }
    first.splice(low, 0, item);
    if (first.length > size + 1) first.pop();
  }
  return { items: first.slice(0, size), hasMore: first.length > size };
}
