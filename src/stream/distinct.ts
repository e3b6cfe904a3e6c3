/**
 * Default cap: 0.75 × 2^21 entries, a table of at most 16 MB (24 MB while it grows the last time). A
 * client reading a fast stream already peaks near 145 MB of RSS (socket buffers awaiting GC), so more
 * would break the 150 MB budget; `maxDistinct` raises it.
 */
export const DEFAULT_MAX_DISTINCT = 1_572_864;

const MAX_LOAD = 0.75;
const INITIAL_SLOTS = 1024;

/**
 * Counts distinct 64-bit keys in bounded memory: an open-addressing table of (hi, lo) pairs, 8 bytes a slot,
 * instead of a Set of strings (about 100 bytes an entry; 300 MB for 3M files). Keys are hashes, so two
 * different names collide with probability about n²/2^65 (about 7e-8 for 1.5M names). Beyond `maxSize`
 * distinct keys, new keys are no longer stored: `size` is then a lower bound and `capped` is true.
 */
export class DistinctCounter {
  size = 0;
  capped = false;
  private table: Int32Array;
  private mask: number;
  private readonly maxSlots: number;

  constructor(private readonly maxSize: number = DEFAULT_MAX_DISTINCT) {
    let maxSlots = INITIAL_SLOTS;
    while (maxSlots * MAX_LOAD < maxSize) maxSlots *= 2;
    this.maxSlots = maxSlots;
    this.table = new Int32Array(INITIAL_SLOTS * 2);
    this.mask = INITIAL_SLOTS - 1;
  }

  add(hi: number, lo: number): void {
    // (0, 0) marks an empty slot.
    if (hi === 0 && lo === 0) lo = 1;
    const table = this.table;
    let slot = lo & this.mask;
    for (;;) {
      const h = table[slot * 2]!;
      const l = table[slot * 2 + 1]!;
      if (h === 0 && l === 0) break;
      if (h === hi && l === lo) return;
      slot = (slot + 1) & this.mask;
    }
    if (this.size >= this.maxSize) {
      this.capped = true;
      return;
    }
    table[slot * 2] = hi;
    table[slot * 2 + 1] = lo;
    this.size++;
    if (this.size > (this.mask + 1) * MAX_LOAD && this.mask + 1 < this.maxSlots) this.grow();
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) {
      const hi = old[i]!;
      const lo = old[i + 1]!;
      if (hi === 0 && lo === 0) continue;
      let slot = lo & this.mask;
      while (this.table[slot * 2] !== 0 || this.table[slot * 2 + 1] !== 0) slot = (slot + 1) & this.mask;
      this.table[slot * 2] = hi;
      this.table[slot * 2 + 1] = lo;
    }
  }
}
