// The term counts of an ASCII answer in typed arrays: its terms (runs of a-z, 0-9 and _ after lower-casing,
// the same terms similarity.ts defines, as ASCII text is its own NFKC form) found by one scan with a hash
// of their characters, never cut out as strings. Two answers' cosine from them is the same number the
// Map of terms gives (the counts, their products and sums are the same integers), in about half the time.

const isTermChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;

export class AsciiTerms {
  /** The lower-cased text the terms are positions in. */
  private text = '';
  /** Distinct terms read. */
  size = 0;
  private start = new Int32Array(0);
  private length = new Int32Array(0);
  private hash = new Int32Array(0);
  count = new Int32Array(0);
  /** Open addressing: each slot holds a term's index + 1, or 0 when empty. */
  private slots = new Int32Array(0);
  private mask = 0;

  /** Counts the terms of `ascii` (text of code points below 128 only), replacing what was read before. */
  read(ascii: string): this {
    const t = ascii.toLowerCase();
    const n = t.length;
    // A term and its separator take two characters at least.
    const most = (n + 1) >> 1;
    if (this.start.length < most) this.grow(most);
    const slotCount = this.slotsFor(most);
    this.slots.fill(0, 0, slotCount);
    this.mask = slotCount - 1;
    this.text = t;
    this.size = 0;
    let i = 0;
    while (i < n) {
      let c = t.charCodeAt(i);
      if (!isTermChar(c)) {
        i++;
        continue;
      }
      const s = i;
      let h = 0x811c9dc5 | 0;
      do {
        h = Math.imul(h ^ c, 0x01000193);
        c = ++i < n ? t.charCodeAt(i) : 0;
      } while (isTermChar(c));
      this.add(s, i - s, h);
    }
    return this;
  }

  /** How many times this text has term `j` of `other`; 0 when never. */
  countOf(other: AsciiTerms, j: number): number {
    const h = other.hash[j]!;
    const len = other.length[j]!;
    const s = other.start[j]!;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const k = this.slots[slot]!;
      if (k === 0) return 0;
      if (this.hash[k - 1] === h && this.length[k - 1] === len && sameText(this.text, this.start[k - 1]!, other.text, s, len)) return this.count[k - 1]!;
    }
  }

  private add(s: number, len: number, h: number): void {
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const k = this.slots[slot]!;
      if (k === 0) {
        const j = this.size++;
        this.start[j] = s;
        this.length[j] = len;
        this.hash[j] = h;
        this.count[j] = 1;
        this.slots[slot] = j + 1;
        return;
      }
      if (this.hash[k - 1] === h && this.length[k - 1] === len && sameText(this.text, this.start[k - 1]!, this.text, s, len)) {
        this.count[k - 1]!++;
        return;
      }
    }
  }

  private grow(most: number): void {
    this.start = new Int32Array(most);
    this.length = new Int32Array(most);
    this.hash = new Int32Array(most);
    this.count = new Int32Array(most);
    this.slots = new Int32Array(this.slotsFor(most));
  }

  /** A power of two at least twice the terms: probes stay short. */
  private slotsFor(most: number): number {
    let size = 16;
    while (size < 2 * most) size *= 2;
    return size;
  }
}

function sameText(a: string, i: number, b: string, j: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (a.charCodeAt(i + k) !== b.charCodeAt(j + k)) return false;
  return true;
}

/** Cosine of two answers' term counts, as similarity.ts's `cosine` of their Maps gives it. */
export function asciiCosine(a: AsciiTerms, b: AsciiTerms): number | null {
  if (a.size === 0 && b.size === 0) return null;
  if (a.size === 0 || b.size === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let j = 0; j < a.size; j++) {
    const n = a.count[j]!;
    na += n * n;
    dot += n * b.countOf(a, j);
  }
  for (let j = 0; j < b.size; j++) nb += b.count[j]! * b.count[j]!;
  return Math.min(1, dot / Math.sqrt(na * nb));
}
