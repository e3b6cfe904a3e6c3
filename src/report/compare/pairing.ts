// Pairs the items of two runs by key with a merge join: both sides arrive sorted by key (SQLite orders
// text by its UTF-8 bytes, which is code point order), so memory stays constant whatever the run size.
// Every item comes out once: paired, or on one side only (listed, never dropped).

export type KeyPart = string | number;

export type Paired<A, B> =
  | { pairing: 'paired'; key: KeyPart[]; baseline: A; candidate: B }
  | { pairing: 'baseline_only'; key: KeyPart[]; baseline: A; candidate?: undefined }
  | { pairing: 'candidate_only'; key: KeyPart[]; baseline?: undefined; candidate: B };

/** Code point order, the order SQLite's BINARY collation gives UTF-8 text. */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  for (;;) {
    const p = x.next();
    const q = y.next();
    if (p.done) return q.done ? 0 : -1;
    if (q.done) return 1;
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

export function compareKeys(a: readonly KeyPart[], b: readonly KeyPart[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const d = typeof x === 'number' && typeof y === 'number' ? x - y : compareText(String(x), String(y));
    if (d !== 0) return d;
  }
  return 0;
}

function* checkedOrder<T>(items: Iterable<T>, key: (item: T) => KeyPart[], side: string): Generator<{ item: T; key: KeyPart[] }> {
  let previous: KeyPart[] | undefined;
  for (const item of items) {
    const k = key(item);
    if (previous && compareKeys(previous, k) >= 0) {
      throw new Error(`${side} items are not in key order (${previous.join('/')} then ${k.join('/')}): cannot pair them`);
    }
    previous = k;
    yield { item, key: k };
  }
}

/** Merge-joins two key-sorted streams; throws if a side is out of order or repeats a key. */
export function* pairByKey<A, B>(
  baseline: Iterable<A>,
  candidate: Iterable<B>,
  keyA: (a: A) => KeyPart[],
  keyB: (b: B) => KeyPart[],
): Generator<Paired<A, B>> {
  const left = checkedOrder(baseline, keyA, 'baseline');
  const right = checkedOrder(candidate, keyB, 'candidate');
  let a = left.next();
  let b = right.next();
  while (!a.done || !b.done) {
    if (b.done || (!a.done && compareKeys(a.value.key, b.value.key) < 0)) {
      const { item, key } = a.value!;
      yield { pairing: 'baseline_only', key, baseline: item };
      a = left.next();
    } else if (a.done || compareKeys(a.value.key, b.value.key) > 0) {
      yield { pairing: 'candidate_only', key: b.value.key, candidate: b.value.item };
      b = right.next();
    } else {
      yield { pairing: 'paired', key: a.value.key, baseline: a.value.item, candidate: b.value.item };
      a = left.next();
      b = right.next();
    }
  }
}
