/**
 * Default cap: 0.75 × 2^21 entries, a table of at most 12 MB (15 MB while it grows the last time). A client
 * reading a fast stream already peaks near 140 MB of RSS (socket buffers and strings awaiting GC), so more
 * would break the 150 MB budget; `maxDistinct` raises it.
 */
export const DEFAULT_MAX_DISTINCT = 1_572_864;

const MAX_LOAD = 0.75;
const INITIAL_SLOTS = 1024;
/** 16-bit words a slot: the key's `lo` (32 bits) and the low 16 bits of its `hi`. */
const SLOT = 3;

/**
 * Counts distinct 64-bit keys in bounded memory: an open-addressing table of 48 bits of each key, 6 bytes a
 * slot, instead of a Set of strings (about 100 bytes an entry; 300 MB for 3M files). Keys are hashes, and
 * two keys count as one when their stored 48 bits agree: about n²/2^49 wrong merges for n names (0.004 for
 * 1.5M names). The slot comes from `lo`, which is kept whole, so the table can grow without the dropped
 * bits. Beyond `maxSize` distinct keys, new keys are no longer stored: `size` is then a lower bound and
 * `capped` is true.
 */
export class DistinctCounter {
  size = 0;
  capped = false;
  private table: Uint16Array;
  private mask: number;
  private readonly maxSlots: number;
  /** Sink of `addAll`'s first pass, so that the compiler keeps its reads. */
  touched = 0;

  constructor(private readonly maxSize: number = DEFAULT_MAX_DISTINCT) {
    let maxSlots = INITIAL_SLOTS;
    while (maxSlots * MAX_LOAD < maxSize) maxSlots *= 2;
    this.maxSlots = maxSlots;
    this.table = new Uint16Array(INITIAL_SLOTS * SLOT);
    this.mask = INITIAL_SLOTS - 1;
  }

  /**
   * Adds the first `length / 2` (hi, lo) pairs of `keys`. The table is far larger than the caches and each key
   * lands in a random place of it, so each add waits for memory: a first pass touches every key's slot, so
   * that the CPU waits for all of them at once instead of one after the other.
   */
  addAll(keys: Int32Array, length: number): void {
    const table = this.table;
    const mask = this.mask;
    let touched = 0;
    for (let i = 1; i < length; i += 2) touched ^= table[(keys[i]! & mask) * SLOT]!;
    this.touched = touched;
    for (let i = 0; i < length; i += 2) this.add(keys[i]!, keys[i + 1]!);
  }

  add(hi: number, lo: number): void {
    const c = hi & 0xffff;
    // All-zero words mark an empty slot.
    if (lo === 0 && c === 0) lo = 1;
    const a = lo & 0xffff;
    const b = lo >>> 16;
    const table = this.table;
    const mask = this.mask;
    let slot = lo & mask;
    for (;;) {
      const at = slot * SLOT;
      const x = table[at]!;
      const y = table[at + 1]!;
      const z = table[at + 2]!;
      if (x === 0 && y === 0 && z === 0) break;
      if (x === a && y === b && z === c) return;
      slot = (slot + 1) & mask;
    }
    if (this.size >= this.maxSize) {
      this.capped = true;
      return;
    }
    const at = slot * SLOT;
    table[at] = a;
    table[at + 1] = b;
    table[at + 2] = c;
    this.size++;
    if (this.size > (mask + 1) * MAX_LOAD && mask + 1 < this.maxSlots) this.grow();
  }

  /** Doubles the table, or goes straight to its largest size from a quarter of it (one copy less in memory). */
  private grow(): void {
    const old = this.table;
    const oldSlots = this.mask + 1;
    const slots = oldSlots * 4 >= this.maxSlots ? this.maxSlots : oldSlots * 2;
    const table = new Uint16Array(slots * SLOT);
    const mask = slots - 1;
    for (let i = 0; i < old.length; i += SLOT) {
      const x = old[i]!;
      const y = old[i + 1]!;
      const z = old[i + 2]!;
      if (x === 0 && y === 0 && z === 0) continue;
      let slot = (x | (y << 16)) & mask;
      while (table[slot * SLOT] !== 0 || table[slot * SLOT + 1] !== 0 || table[slot * SLOT + 2] !== 0) slot = (slot + 1) & mask;
      table[slot * SLOT] = x;
      table[slot * SLOT + 1] = y;
      table[slot * SLOT + 2] = z;
    }
    this.table = table;
    this.mask = mask;
  }
}
