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
    order.splice(bound(order, 'updated_at', item, false), 1);
    item.updatedAtMs = updatedAtMs;
    this.insert('updated_at', item);
  }

  /** Every item strictly after `after` in the sort's order, lazily. */
  *after(sort: SortName, after: SortKeys | undefined): Generator<T> {
    const descending = sort.startsWith('-');
    const field = (descending ? sort.slice(1) : sort) as Field;
    const order = this.orders[field];
    if (descending) {
      for (let i = (after ? bound(order, field, after, false) : order.length) - 1; i >= 0; i--) yield order[i] as T;
    } else {
      for (let i = after ? bound(order, field, after, true) : 0; i < order.length; i++) yield order[i] as T;
    }
  }

  private insert(field: Field, item: T): void {
    const order = this.orders[field];
    // New items almost always sort last (ids and times grow): no search, no move.
    const last = order[order.length - 1];
    if (!last || ascending(field, last, item) < 0) order.push(item);
    else order.splice(bound(order, field, item, true), 0, item);
  }
}

/**
 * Items by the lower-cased texts a content query searches, each text's items kept in update order, so a
 * content query's page reads only items that match it (a runner's lookup of a lost create lists by its
 * question's text: scanning every conversation per page made a faulty run quadratic again).
 */
export class ContentIndex<T extends SortKeys> {
  /** Each text's items, ascending by (updatedAtMs, id). */
  private readonly byText = new Map<string, T[]>();
  /** What each item is indexed under, and at which keys. */
  private readonly indexed = new WeakMap<T, { texts: readonly string[]; updatedAtMs: number }>();
  /** The texts containing a query, for queries seen (repeated by every lookup of the same question). */
  private readonly containing = new Map<string, string[]>();

  /** Indexes the item under `texts` (lower-cased) at its current keys; call after either changed. */
  index(item: T, texts: readonly string[]): void {
    const unique = [...new Set(texts)];
    const before = this.indexed.get(item);
    if (before && before.updatedAtMs === item.updatedAtMs && sameTexts(before.texts, unique)) return;
    if (before) {
      const keys = { id: item.id, createdAtMs: item.createdAtMs, updatedAtMs: before.updatedAtMs };
      for (const text of before.texts) {
        const order = this.byText.get(text) as T[];
        order.splice(bound(order, 'updated_at', keys, false), 1);
      }
    }
    for (const text of unique) {
      const order = this.orderOf(text);
      order.splice(bound(order, 'updated_at', item, true), 0, item);
    }
    this.indexed.set(item, { texts: unique, updatedAtMs: item.updatedAtMs });
  }

  /** The texts `item` is indexed under. */
  textsOf(item: T): readonly string[] {
    return this.indexed.get(item)?.texts ?? [];
  }

  /** Items with a text containing `needle` (lower-cased, not empty), newest update first, strictly after `after`, lazily. */
  *matching(needle: string, after: SortKeys | undefined): Generator<T> {
    // A merge of the matching texts' orders, newest first, over a heap of each order's next item.
    const heads = new Heap<{ order: T[]; at: number }>((a, b) => ascending('updated_at', a.order[a.at] as T, b.order[b.at] as T) > 0);
    for (const text of this.textsContaining(needle)) {
      const order = this.byText.get(text) as T[];
      const at = (after ? bound(order, 'updated_at', after, false) : order.length) - 1;
      if (at >= 0) heads.push({ order, at });
    }
    let last: T | undefined;
    for (let head = heads.pop(); head; head = heads.pop()) {
      const item = head.order[head.at--] as T;
      if (head.at >= 0) heads.push(head);
      // An item under two matching texts comes out twice in a row.
      if (item !== last) yield item;
      last = item;
    }
  }

  private orderOf(text: string): T[] {
    let order = this.byText.get(text);
    if (!order) {
      this.byText.set(text, (order = []));
      for (const [needle, texts] of this.containing) if (text.includes(needle)) texts.push(text);
    }
    return order;
  }

  private textsContaining(needle: string): string[] {
    let texts = this.containing.get(needle);
    if (!texts) {
      // Bounded: a cache of queries, rebuilt from the texts when dropped.
      if (this.containing.size >= 1000) this.containing.clear();
      texts = [...this.byText.keys()].filter((t) => t.includes(needle));
      this.containing.set(needle, texts);
    }
    return texts;
  }
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** First position in an ascending order by `field` whose item sorts at or after `keys` (`strictly`: after it). */
function bound<T extends SortKeys>(order: readonly T[], field: Field, keys: SortKeys, strictly: boolean): number {
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

/** A binary heap: `pop` gives the item for which `first` holds against every other. */
class Heap<T> {
  private readonly items: T[] = [];

  constructor(private readonly first: (a: T, b: T) => boolean) {}

  push(item: T): void {
    const items = this.items;
    let at = items.push(item) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.first(items[at] as T, items[parent] as T)) break;
      [items[at], items[parent]] = [items[parent] as T, items[at] as T];
      at = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const end = items.pop();
    if (items.length === 0 || end === undefined) return top;
    items[0] = end;
    for (let at = 0; ; ) {
      const [l, r] = [2 * at + 1, 2 * at + 2];
      let best = at;
      if (l < items.length && this.first(items[l] as T, items[best] as T)) best = l;
      if (r < items.length && this.first(items[r] as T, items[best] as T)) best = r;
      if (best === at) return top;
      [items[at], items[best]] = [items[best] as T, items[at] as T];
      at = best;
    }
  }
}
