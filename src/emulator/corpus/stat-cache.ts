/** What identifies a version of a file or folder: a change to it changes one of these. */
export function statKey(s: { mtimeMs: number; ctimeMs: number; size: number; ino: number }): string {
  return `${s.mtimeMs}:${s.ctimeMs}:${s.size}:${s.ino}`;
}

/**
 * Values found for files or folders, by path, each kept with the stat key it was found under and given back
 * only while the key is the same; beyond `max` paths the least recently used are dropped. Held for the whole
 * process: each emulator a process starts (a test file starts dozens) would otherwise find them again.
 */
export class StatCache<T> {
  private readonly entries = new Map<string, { key: string; value: T }>();

  constructor(private readonly max: number) {}

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
    this.entries.delete(path);
    this.entries.set(path, { key, value });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(path: string): void {
    this.entries.delete(path);
  }
}
