import { readFileSync, statSync } from 'node:fs';
import { StatCache, statKey } from './stat-cache.js';

/** Larger files are never searched (walk.ts); the raw endpoint may still serve one, read each time. */
const MAX_KEPT_CHARS = 1024 * 1024;
/**
 * Texts of corpus files by path, kept while the file's stat is unchanged: a question reads every file of the
 * packages it names, and its follow-ups and the next questions read the same ones again (a smoke run opened
 * each file it read about six times). 32 Mi characters, the least recently read dropped first: a smoke run reads
 * 14 MB, the whole default corpus is about 65 MB.
 */
const texts = new StatCache<string>(32 * 1024 * 1024, (text) => text.length);

/**
 * A file's stat key, undefined when it is missing. The corpus's calls are synchronous: on a local folder a stat
 * or a read of at most 1 MB costs microseconds, a fifth of the CPU of the same call through the thread pool.
 */
export function corpusStatKey(file: string): string | undefined {
  try {
    const s = statSync(file, { throwIfNoEntry: false });
    return s && statKey(s);
  } catch {
    return undefined;
  }
}

/** A file's text as it is now; undefined when it is missing or unreadable. `key` is its stat key when the caller just read it. */
export function readCorpusText(file: string, key = corpusStatKey(file)): string | undefined {
  if (key === undefined) {
    texts.delete(file);
    return undefined;
  }
  const cached = texts.get(file, key);
  if (cached !== undefined) return cached;
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = undefined;
  }
  // Read after the stat: a file rewritten in between is kept under its older key, so the next read sees the change.
  if (text === undefined || text.length > MAX_KEPT_CHARS) texts.delete(file);
  else texts.set(file, key, text);
  return text;
}

/** Remembers a text read whole elsewhere (a walk's first look at a small file) under the stat key it was read with. */
export function rememberText(file: string, key: string, text: string): void {
  texts.set(file, key, text);
}
