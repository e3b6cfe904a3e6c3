/** Sorting and keyset pagination shared by both list operations, over an index kept in sort order. */

export const SORTS = ['id', '-id', 'created_at', '-created_at', 'updated_at', '-updated_at'] as const;
export type SortName = (typeof SORTS)[number];

export interface SortKeys {
  id: number;
  createdAtMs: number;
  updatedAtMs: number;
}

type Field = 'id' | 'created_at' | 'updated_at';

const keyOf = (field: Field, k: SortKeys): number => (field === 'created_at' ? k.createdAtMs : field === 'updated_at' ? k.updatedAtMs : k.id);

/** Ascending by the field, ties by id: a total order. */
function ascending(field: Field, a: SortKeys, b: SortKeys): number {
  return keyOf(field, a) - keyOf(field, b) || a.id - b.id;
}

/** Total order: ties on a timestamp are broken by id in the same direction. */
export function comparator(sort: SortName): (a: SortKeys, b: SortKeys) => number {
  const field = (sort.startsWith('-') ? sort.slice(1) : sort) as Field;
  const sign = sort.startsWith('-') ? -1 : 1;
  return (a, b) => sign * ascending(field, a, b);
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** The items that `keep` keeps, lazily. */
export function* where<T>(items: Iterable<T>, keep: (item: T) => boolean): Generator<T> {
  for (const item of items) if (keep(item)) yield item;
}

/** The first `size` items (and whether there are more): reads at most size + 1 of them. */
export function firstPage<T>(items: Iterable<T>, size: number): Page<T> {
  const page: T[] = [];
  for (const item of items) {
    if (page.length === size) return { items: page, hasMore: true };
    page.push(item);
  }
  return { items: page, hasMore: false };
}

/**
 * Items kept in each sort field's order, so a page starts with a binary search for its cursor and reads
 * only what it returns (and what filters skip): a runner looking for a lost create lists once per loss,
 * and a pass over every conversation per page made a faulty run quadratic in its conversations.
 * An item's updatedAtMs changes only through `touch`, which moves it.
 */
export class SortIndex<T extends SortKeys> {
  private readonly orders: Record<Field, T[]> = { id: [], created_at: [], updated_at: [] };

  add(item: T): void {
    for (const field of ['id', 'created_at', 'updated_at'] as const) this.insert(field, item);
  }

  /** Sets the item's updatedAtMs to `updatedAtMs`, keeping the updated_at order. */
  touch(item: T, updatedAtMs: number): void {
    if (updatedAtMs === item.updatedAtMs) return;
    const order = this.orders.updated_at;
    order.splice(this.bound('updated_at', item, false), 1);
    item.updatedAtMs = updatedAtMs;
    this.insert('updated_at', item);
  }

  /** Every item strictly after `after` in the sort's order, lazily. */
  *after(sort: SortName, after: SortKeys | undefined): Generator<T> {
    const descending = sort.startsWith('-');
    const field = (descending ? sort.slice(1) : sort) as Field;
    const order = this.orders[field];
    if (descending) {
      for (let i = (after ? this.bound(field, after, false) : order.length) - 1; i >= 0; i--) yield order[i] as T;
    } else {
      for (let i = after ? this.bound(field, after, true) : 0; i < order.length; i++) yield order[i] as T;
    }
  }

  private insert(field: Field, item: T): void {
    const order = this.orders[field];
    // New items almost always sort last (ids and times grow): no search, no move.
    const last = order[order.length - 1];
    if (!last || ascending(field, last, item) < 0) order.push(item);
    else order.splice(this.bound(field, item, true), 0, item);
  }

  /** First position whose item sorts at or after `keys` (`strictly`: after it). */
  private bound(field: Field, keys: SortKeys, strictly: boolean): number {
    const order = this.orders[field];
    let low = 0;
    let high = order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const c = ascending(field, order[mid] as T, keys);
      if (c < 0 || (strictly && c === 0)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
