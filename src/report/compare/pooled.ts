import { type KeyPart, type Paired, compareKeys, pairByKey } from './pairing.js';

// A pooled baseline (`window:K`): the candidate's items paired with each of K baseline runs in turn, one
// question at a time, so a question carries all its repeats over the K nights and stays one cluster.

/** A pair, and the baseline run its baseline side came from (unset for an item only in the candidate). */
export type PooledPair<T> = Paired<T, T> & { baselineRun?: number };

/** A key-sorted stream read one group (a question or search id, with its target) at a time. */
class GroupReader<T> {
  private readonly items: Iterator<T>;
  private head: IteratorResult<T>;

  constructor(
    items: Iterable<T>,
    private readonly group: (item: T) => KeyPart[],
  ) {
    this.items = items[Symbol.iterator]();
    this.head = this.items.next();
  }

  peek(): KeyPart[] | undefined {
    return this.head.done ? undefined : this.group(this.head.value);
  }

  take(group: readonly KeyPart[]): T[] {
    const taken: T[] = [];
    while (!this.head.done && compareKeys(this.group(this.head.value), group) === 0) {
      taken.push(this.head.value);
      this.head = this.items.next();
    }
    return taken;
  }
}

/**
 * Per group, in key order: the candidate's items paired with each baseline run's (baseline runs in the
 * order given), every baseline item that has no partner, then the candidate's items that paired with no
 * run (once, not once per run). `baselines` are key-sorted streams with their run ids.
 */
export function* pairPooled<T>(
  baselines: ReadonlyArray<{ runId: number; items: Iterable<T> }>,
  candidate: Iterable<T>,
  key: (item: T) => KeyPart[],
  group: (item: T) => KeyPart[],
): Generator<PooledPair<T>> {
  const cReader = new GroupReader(candidate, group);
  const bReaders = baselines.map((b) => ({ runId: b.runId, reader: new GroupReader(b.items, group) }));
  for (;;) {
    const heads = [cReader.peek(), ...bReaders.map((b) => b.reader.peek())].filter((k): k is KeyPart[] => k !== undefined);
    if (heads.length === 0) return;
    const next = heads.reduce((a, b) => (compareKeys(a, b) <= 0 ? a : b));
    const cItems = cReader.take(next);
    const paired = new Set<string>();
    for (const { runId, reader } of bReaders) {
      for (const pair of pairByKey(reader.take(next), cItems, key, key)) {
        if (pair.pairing === 'candidate_only') continue;
        if (pair.pairing === 'paired') paired.add(JSON.stringify(pair.key));
        yield { ...pair, baselineRun: runId };
      }
    }
    for (const item of cItems) {
      const k = key(item);
      if (!paired.has(JSON.stringify(k))) yield { pairing: 'candidate_only', key: k, candidate: item };
    }
  }
}
