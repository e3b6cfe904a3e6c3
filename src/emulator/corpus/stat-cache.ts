/** What identifies a version of a file or folder: a change to it changes one of these. */
export function statKey(s: { mtimeMs: number; ctimeMs: number; size: number; ino: number }): string {
  return `${s.mtimeMs}:${s.ctimeMs}:${s.size}:${s.ino}`;
}

/**
 * Values found for files or folders, by path, each kept with the stat key it was found under and given back
 * only while the key is the same; beyond `max` (in entries, or in what `weigh` counts) the least recently
 * used are dropped. Held for the whole process: each emulator a process starts (a test file starts dozens)
 * would otherwise find them again.
 */
export class StatCache<T> {
  private readonly entries = new Map<string, { key: string; value: T; weight: number }>();
  private total = 0;

  constructor(
    private readonly max: number,
    private readonly weigh: (value: T) => number = () => 1,
  ) {}

  /** The value found for `path` under `key`, if it is the one kept. */
  get(path: string, key: string): T | undefined {
    const entry = this.entries.get(path);
    if (entry?.key !== key) return undefined;
    this.entries.delete(path);
    this.entries.set(path, entry);
    return entry.value;
  }

  /** Whether a value is kept for `path`, under any key. */
  has(path: string): boolean {
    return this.entries.has(path);
  }

  set(path: string, key: string, value: T): void {
    this.delete(path);
    const weight = this.weigh(value);
    this.entries.set(path, { key, value, weight });
    this.total += weight;
    while (this.total > this.max) this.delete(this.entries.keys().next().value!);
  }

  delete(path: string): void {
    const entry = this.entries.get(path);
    if (!entry) return;
    this.entries.delete(path);
    this.total -= entry.weight;
  }
}
