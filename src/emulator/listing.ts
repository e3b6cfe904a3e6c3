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

/** Items strictly after `after` in the sort order, so walking pages never repeats an item. */
export function pageAfter<T extends SortKeys>(
  items: readonly T[],
  sort: SortName,
  after: SortKeys | undefined,
  size: number,
): Page<T> {
  const compare = comparator(sort);
  const sorted = [...items].sort(compare);
  const rest = after ? sorted.filter((item) => compare(item, after) > 0) : sorted;
  return { items: rest.slice(0, size), hasMore: rest.length > size };
}
